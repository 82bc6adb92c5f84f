import { expect } from 'chai';
import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  DiscordAPIError,
  DiscordjsError,
  Events,
  GatewayIntentBits,
  LabelBuilder,
  ModalBuilder,
  Options,
  Partials,
  RESTEvents,
  Routes,
  TextInputBuilder,
  TextInputStyle,
  type ClientOptions,
  type GatewayDispatchPayload,
  type Interaction,
  type Message,
} from 'discord.js';
import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
} from '../../support/fakes/discord-api.js';
import { rejection } from '../../support/processes.js';

// The fake Discord is only worth its tests if the real SDK cannot tell it from Discord: every test here
// drives it through a discord.js Client, over REST and the gateway, as the bot under test will.
describe('fake Discord, driven by the real discord.js Client', () => {
  const userId = '333333333333333333';
  let fake: FakeDiscord;
  let clients: Client[] = [];

  async function start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    await fake?.close();
    fake = await startFakeDiscord(options);
    return fake;
  }

  beforeEach(async () => {
    fake = await startFakeDiscord();
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.destroy()));
    clients = [];
    await fake.close();
  });

  /** The one thing that points discord.js at the fake: its REST root. The gateway url comes from it. */
  function newClient(options: Partial<ClientOptions> = {}): Client {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Channel], // DM channels are never announced: without this, DMs are dropped
      rest: { api: fake.restUrl },
      ...options,
    });
    clients.push(client);
    return client;
  }

  async function readyClient(options: Partial<ClientOptions> = {}): Promise<Client<true>> {
    const client = newClient(options);
    const ready = once(client, Events.ClientReady);
    await client.login(fake.token);
    await ready;
    return client as Client<true>;
  }

  /** Everything the client emits as `event`, as it comes. */
  function collect<T>(
    client: Client,
    event: typeof Events.MessageCreate | typeof Events.InteractionCreate,
  ): T[] {
    const seen: T[] = [];
    client.on(event, (value: unknown) => seen.push(value as T));
    return seen;
  }

  const stopButton = (customId = 'stop:1') =>
    new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(customId).setLabel('Stop').setStyle(ButtonStyle.Danger),
    );

  it('logs a client in: gateway url from GET /gateway/bot, IDENTIFY, READY, GUILD_CREATE, heartbeats', async () => {
    await start({ heartbeatIntervalMs: 100 });
    const client = await readyClient();

    expect(client.user.id).to.equal(fake.botUser.id);
    expect(client.user.username).to.equal('cairn');
    expect(client.application.id).to.equal(fake.applicationId);
    const guild = client.guilds.cache.get(fake.guildId);
    expect(guild?.available).to.equal(true);
    expect(guild?.channels.cache.get(fake.channelId)?.isTextBased()).to.equal(true);
    expect(guild?.members.me?.id).to.equal(fake.botUser.id);

    const identify = await fake.waitForIdentify();
    expect(identify).to.include({
      token: fake.token,
      compress: false,
      intents: 1 | (1 << 9) | (1 << 12) | (1 << 15),
    });
    expect(identify.shard).to.deep.equal([0, 1]);
    expect(fake.connections.map(({ path, query }) => ({ path, query }))).to.deep.equal([
      { path: '/', query: { v: '10', encoding: 'json' } },
    ]);
    expect(fake.callsOf('GET /gateway/bot').map((call) => call.status)).to.deep.equal([200]);
    // READY is 1, GUILD_CREATE 2.
    expect(fake.sequence).to.equal(2);

    await fake.waitFor(() => client.ws.ping >= 0, 'a heartbeat acknowledged');
    expect(fake.heartbeats).to.be.greaterThan(0);
  });

  it('delivers a pushed guild message; the reply and its edit go through REST', async () => {
    const client = await readyClient();
    const created = collect<Message>(client, Events.MessageCreate);

    const { messageId } = fake.pushMessage({
      channelId: fake.channelId,
      authorId: userId,
      content: 'please fix the build',
      mentionsBot: true,
    });
    const incoming = await fake.waitFor(
      () => created.find((message) => message.id === messageId),
      'the message',
    );

    expect(incoming.guildId).to.equal(fake.guildId);
    expect(incoming.author.id).to.equal(userId);
    expect(incoming.content).to.equal(`<@${fake.botUser.id}> please fix the build`);
    expect(incoming.mentions.users.has(fake.botUser.id)).to.equal(true);

    const reply = await incoming.reply({ content: 'working…', components: [stopButton()] });
    await reply.edit({ content: 'done' });

    expect(reply.author.id).to.equal(fake.botUser.id);
    expect(fake.messages(fake.channelId)).to.deep.equal([
      {
        id: reply.id,
        channelId: fake.channelId,
        content: 'done',
        embeds: [],
        // As Discord stores them: numbered in document order, with no field the builder left undefined.
        components: [
          { type: 1, id: 1, components: [{ type: 2, id: 2, custom_id: 'stop:1', label: 'Stop', style: 4 }] },
        ],
        flags: 0,
        replyTo: messageId,
        // A reply without allowed_mentions notifies the author it answers.
        pings: { users: [userId], roles: [], everyone: false },
        edits: 1,
        history: ['working…', 'done'],
      },
    ]);
    // As from Discord, the bot hears its own messages: an app must ignore them.
    await fake.waitFor(() => created.find((message) => message.id === reply.id), 'the echo of the reply');
  });

  it('delivers DMs (with Partials.Channel) and leaves guild content out without the MESSAGE_CONTENT intent', async () => {
    const client = await readyClient({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
    });
    const created = collect<Message>(client, Events.MessageCreate);

    const dm = fake.pushMessage({
      channelId: '444444444444444444',
      authorId: userId,
      content: 'hi in private',
    });
    const plain = fake.pushMessage({
      channelId: fake.channelId,
      authorId: userId,
      content: 'not for the bot',
    });
    const mention = fake.pushMessage({
      channelId: fake.channelId,
      authorId: userId,
      content: 'hey',
      mentionsBot: true,
    });
    await fake.waitFor(() => created.length === 3, 'three messages');

    const [inDm, inGuild, mentioning] = created;
    expect(inDm?.id).to.equal(dm.messageId);
    expect(inDm?.channel.isDMBased()).to.equal(true);
    expect(inDm?.content).to.equal('hi in private');
    expect(inGuild?.id).to.equal(plain.messageId);
    expect(inGuild?.content).to.equal('');
    expect(mentioning?.id).to.equal(mention.messageId);
    expect(mentioning?.content).to.equal(`<@${fake.botUser.id}> hey`);

    if (!inDm?.channel.isSendable()) throw new Error('the DM channel is not sendable');
    const sent = await inDm.channel.send('hello in private');
    expect(fake.messages('444444444444444444').map((message) => message.id)).to.deep.equal([sent.id]);
  });

  it('refuses messages as Discord does: too long, empty, unknown message, bad components', async () => {
    const client = await readyClient();
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');

    const tooLong = await rejection<DiscordAPIError>(channel.send('x'.repeat(2001)));
    expect(tooLong).to.be.instanceOf(DiscordAPIError);
    expect(tooLong.code).to.equal(50035);
    expect(tooLong.rawError).to.deep.equal({
      message: 'Invalid Form Body',
      code: 50035,
      errors: {
        content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
      },
    });

    const empty = await rejection<DiscordAPIError>(
      client.rest.post(Routes.channelMessages(fake.channelId), { body: {} }),
    );
    expect([empty.status, empty.code, empty.message]).to.deep.equal([
      400,
      50006,
      'Cannot send an empty message',
    ]);

    const unknown = await rejection<DiscordAPIError>(
      client.rest.patch(Routes.channelMessage(fake.channelId, '999'), { body: { content: 'x' } }),
    );
    expect([unknown.status, unknown.code, unknown.message]).to.deep.equal([404, 10008, 'Unknown Message']);

    const twice = await rejection<DiscordAPIError>(
      channel.send({ content: 'two stops', components: [stopButton('same'), stopButton('same')] }),
    );
    expect(twice.code).to.equal(50035);
    expect(JSON.stringify(twice.rawError)).to.include('COMPONENT_CUSTOM_ID_DUPLICATED');

    expect(fake.messages(fake.channelId)).to.deep.equal([]);
  });

  it('notifies whom the content mentions unless allowed_mentions forbids it', async () => {
    const client = await readyClient();
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');
    const text = `<@${userId}> and <@&555555555555555555>, @everyone look`;

    const loud = await channel.send(text);
    const quiet = await channel.send({ content: text, allowedMentions: { parse: [] } });
    const some = await channel.send({ content: text, allowedMentions: { users: [userId] } });
    await quiet.edit({ content: `${text} again` }); // an edit without allowed_mentions parses again

    const pings = (id: string) => fake.messages(fake.channelId).find((message) => message.id === id)?.pings;
    expect(pings(loud.id)).to.deep.equal({
      users: [userId],
      roles: ['555555555555555555'],
      everyone: true,
    });
    expect(pings(some.id)).to.deep.equal({ users: [userId], roles: [], everyone: false });
    expect(pings(quiet.id)).to.deep.equal({
      users: [userId],
      roles: ['555555555555555555'],
      everyone: true,
    });
    const silent = await channel.send({ content: text, allowedMentions: { parse: [] } });
    expect(pings(silent.id)).to.deep.equal({ users: [], roles: [], everyone: false });

    const both = await rejection<DiscordAPIError>(
      client.rest.post(Routes.channelMessages(fake.channelId), {
        body: { content: text, allowed_mentions: { parse: ['users'], users: [userId] } },
      }),
    );
    expect(both.code).to.equal(50035);
  });

  it('delivers a button press; interaction.update edits its message; a second answer is refused', async () => {
    const client = await readyClient();
    const interactions = collect<Interaction>(client, Events.InteractionCreate);
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');
    const sent = await channel.send({ content: 'working…', components: [stopButton()] });

    const pushed = fake.pushButton({
      channelId: fake.channelId,
      messageId: sent.id,
      userId,
      customId: 'stop:1',
    });
    const interaction = await fake.waitFor(() => interactions[0], 'the interaction');
    if (!interaction.isButton()) throw new Error(`not a button press: ${interaction.type}`);

    expect(interaction.id).to.equal(pushed.interactionId);
    expect(interaction.customId).to.equal('stop:1');
    expect(interaction.user.id).to.equal(userId);
    expect(interaction.message.id).to.equal(sent.id);
    expect(interaction.guildId).to.equal(fake.guildId);
    await interaction.update({ content: 'stopped', components: [] });

    expect(fake.interactionCallbacks).to.have.length(1);
    const [callback] = fake.interactionCallbacks;
    expect(callback).to.deep.include({ interactionId: pushed.interactionId, type: 7 });
    // discord.js also sends its defaults (tts, enforce_nonce), which Discord ignores in a callback.
    expect(callback?.data).to.deep.include({ content: 'stopped', components: [] });
    expect(fake.messages(fake.channelId)[0]).to.deep.include({
      content: 'stopped',
      components: [],
      edits: 1,
      history: ['working…', 'stopped'],
    });

    // discord.js refuses a second answer itself; the raw call shows what Discord says.
    const again = await rejection<DiscordAPIError>(
      client.rest.post(Routes.interactionCallback(pushed.interactionId, pushed.token), {
        body: { type: 6 },
        auth: false,
      }),
    );
    expect([again.status, again.code]).to.deep.equal([400, 40060]);
    expect(() =>
      fake.pushButton({ channelId: fake.channelId, messageId: sent.id, userId, customId: 'stop:1' }),
    ).to.throw(/no enabled button/);
  });

  it('forgets an interaction not answered in time (Unknown interaction, 10062)', async () => {
    await start({ interactionDeadlineMs: 100 });
    const client = await readyClient();
    const interactions = collect<Interaction>(client, Events.InteractionCreate);
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');
    const sent = await channel.send({ content: 'working…', components: [stopButton()] });

    fake.pushButton({ channelId: fake.channelId, messageId: sent.id, userId, customId: 'stop:1' });
    const interaction = await fake.waitFor(() => interactions[0], 'the interaction');
    if (!interaction.isButton()) throw new Error('not a button press');
    await new Promise((resolve) => setTimeout(resolve, 150));

    const late = await rejection<DiscordAPIError>(interaction.deferUpdate());
    expect([late.status, late.code, late.message]).to.deep.equal([404, 10062, 'Unknown interaction']);
    expect(fake.interactionCallbacks).to.deep.equal([]);
  });

  it('shows a modal on a button press and delivers its submission in the same layout', async () => {
    const client = await readyClient();
    const interactions = collect<Interaction>(client, Events.InteractionCreate);
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');
    const sent = await channel.send({ content: 'needs input', components: [stopButton('answer')] });

    fake.pushButton({ channelId: fake.channelId, messageId: sent.id, userId, customId: 'answer' });
    const press = await fake.waitFor(() => interactions[0], 'the button press');
    if (!press.isButton()) throw new Error('not a button press');
    const input = new TextInputBuilder().setCustomId('reply').setStyle(TextInputStyle.Paragraph);
    await press.showModal(
      new ModalBuilder()
        .setCustomId('answer-modal')
        .setTitle('Answer')
        .addLabelComponents(new LabelBuilder().setLabel('Your answer').setTextInputComponent(input)),
    );
    expect(fake.interactionCallbacks.map((callback) => callback.type)).to.deep.equal([9]);

    const submitted = fake.pushModalSubmit({
      channelId: fake.channelId,
      userId,
      customId: 'answer-modal',
      values: { reply: 'use main' },
      messageId: sent.id,
    });
    const submit = await fake.waitFor(() => interactions[1], 'the modal submission');
    if (!submit.isModalSubmit()) throw new Error(`not a modal submission: ${submit.type}`);

    expect(submit.id).to.equal(submitted.interactionId);
    expect(submit.customId).to.equal('answer-modal');
    expect(submit.fields.getTextInputValue('reply')).to.equal('use main');
    await submit.reply({ content: 'thanks' });

    // One answer per interaction: the press got the modal (9), the submission its reply (4).
    const [modal, answer] = fake.interactionCallbacks;
    expect(fake.interactionCallbacks).to.have.length(2);
    expect(modal).to.deep.include({ interactionId: press.id, type: 9 });
    expect(answer).to.deep.include({ interactionId: submitted.interactionId, type: 4 });
    expect(fake.messages(fake.channelId).map((message) => message.content)).to.deep.equal([
      'needs input',
      'thanks',
    ]);
    expect(() =>
      fake.pushModalSubmit({
        channelId: fake.channelId,
        userId,
        customId: 'answer-modal',
        values: { nope: 'x' },
      }),
    ).to.throw(/has no field nope/);
  });

  it('fails login with a wrong token: TokenInvalid from REST, before any gateway connection', async () => {
    const client = newClient();

    const error = await rejection<DiscordjsError>(client.login('MTIz.wrong.token'));

    expect(error).to.be.instanceOf(DiscordjsError);
    expect(error.code).to.equal('TokenInvalid');
    expect(fake.calls.map((call) => [call.route, call.status])).to.deep.equal([['GET /gateway/bot', 401]]);
    expect(fake.connections).to.deep.equal([]);
  });

  it('fails login when the gateway refuses IDENTIFY with 4004, without retrying', async () => {
    fake.failNextIdentify(4004);
    const client = newClient();
    const disconnects: number[] = [];
    client.on(Events.ShardDisconnect, (event) => disconnects.push(event.code));

    const error = await rejection(client.login(fake.token));

    expect(error.message).to.equal('Authentication failed');
    expect(disconnects).to.deep.equal([4004]);
    await new Promise((resolve) => setTimeout(resolve, 700)); // longer than @discordjs/ws's reconnect delay
    expect(fake.connections).to.have.length(1);
    expect(fake.identifies).to.deep.equal([]);
  });

  it('answers 429 with retry_after: @discordjs/rest waits and sends again, and the message arrives once', async () => {
    const client = await readyClient();
    const channel = client.channels.cache.get(fake.channelId);
    if (!channel?.isSendable()) throw new Error('no sendable channel');
    const limits: number[] = [];
    client.rest.on(RESTEvents.RateLimited, (info) => limits.push(info.retryAfter));
    fake.failNext('POST /channels/:id/messages', { status: 429, retryAfterSeconds: 0.3 });
    fake.failNext('POST /channels/:id/messages', { status: 502 });

    const sent = await channel.send('after the limit');

    const posts = fake.callsOf('POST /channels/:id/messages');
    expect(posts.map((call) => call.status)).to.deep.equal([429, 502, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).to.be.at.least(300);
    expect(limits).to.have.length.at.least(1);
    expect(fake.messages(fake.channelId).map((message) => message.id)).to.deep.equal([sent.id]);
  });

  it('replays missed dispatches on RESUME after a dropped connection', async () => {
    const client = await readyClient();
    const created = collect<Message>(client, Events.MessageCreate);
    const raw: string[] = [];
    client.on(Events.Raw, (packet: GatewayDispatchPayload) => {
      if (packet.t === 'MESSAGE_CREATE') raw.push(packet.d.id);
    });
    const resumed = once(client, Events.ShardResume);

    const first = fake.pushMessage({ channelId: fake.channelId, authorId: userId, content: 'first' });
    await fake.waitFor(() => created.length === 1, 'the first message');
    await fake.dropConnection({ replayAfter: (first.seq ?? 0) - 1 });
    const missed = fake.pushMessage({ channelId: fake.channelId, authorId: userId, content: 'while away' });
    const [, replayedCount] = await resumed;

    await fake.waitFor(() => created.length === 2, 'the missed message');
    expect(fake.resumes).to.have.length(1);
    expect(fake.resumes[0]?.replayed).to.deep.equal([first.seq, missed.seq]);
    expect(fake.connections.map((connection) => connection.path)).to.deep.equal(['/', '/resume']);
    expect(fake.identifies).to.have.length(1);
    // discord.js counts sequence numbers past its own: the missed message and RESUMED, a dispatch with
    // its own sequence number as on Discord.
    expect(replayedCount).to.equal(2);
    expect(fake.sequence).to.equal((missed.seq ?? 0) + 1);
    // The first message came twice over the wire; discord.js drops the copy of a message it still caches.
    expect(raw).to.deep.equal([first.messageId, first.messageId, missed.messageId]);
    expect(created.map((message) => message.content)).to.deep.equal(['first', 'while away']);
  });

  it('closes the connection with a code: discord.js resumes after 4000, and gives up after 4004', async () => {
    const client = await readyClient();
    const disconnects: number[] = [];
    client.on(Events.ShardDisconnect, (event) => disconnects.push(event.code));
    const resumed = once(client, Events.ShardResume);

    await fake.closeConnection(4000);
    await resumed;
    expect(fake.resumes).to.have.length(1);
    expect(fake.identifies).to.have.length(1);

    await fake.closeConnection(4004);
    await fake.waitFor(() => disconnects.length === 1, 'discord.js to give up');
    expect(disconnects).to.deep.equal([4004]);
    await new Promise((resolve) => setTimeout(resolve, 700)); // longer than @discordjs/ws's reconnect delay
    expect(fake.connections).to.have.length(2);
    expect(fake.sequence).to.equal(0); // the session is gone
  });

  it('replays on the live connection: without a message cache, discord.js emits the duplicate', async () => {
    const client = await readyClient({
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    });
    const created = collect<Message>(client, Events.MessageCreate);

    const pushed = fake.pushMessage({ channelId: fake.channelId, authorId: userId, content: 'once' });
    await fake.waitFor(() => created.length === 1, 'the message');
    expect(fake.replay((pushed.seq ?? 0) - 1)).to.deep.equal([pushed.seq]);

    await fake.waitFor(() => created.length === 2, 'the duplicate');
    expect(created.map((message) => message.id)).to.deep.equal([pushed.messageId, pushed.messageId]);
  });
});
