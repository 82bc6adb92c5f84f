import { expect } from 'chai';
import { chatDoorServices } from '../../cli/boot/chat-adapters.js';
import { DiscordReceiver } from '../../adapters/discord/discord-receiver.js';
import type { AdapterState } from '../../domain/chat/adapter-state.js';
import type { ChatStreamingMode } from '../../domain/chat/chat-reply.js';
import { DISCORD_EDIT_INTERVAL_MS } from '../../infra/chat/discord/discord-messenger.js';
import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import { startFakeDiscord, type BotMessage, type FakeDiscord } from '../support/fakes/discord-api.js';
import { jsonClient } from '../support/json-client.js';
import { waitForChatHealth } from '../support/chat-health.js';

/** Users on DISCORD_ALLOWED_USER_IDS; each test talks in channels of its own. */
const ALICE = '300000000000000001';
const BOB = '300000000000000002';
const CAROL = '300000000000000003';
const STRANGER = '300000000000000099';
const ALLOWED = [ALICE, BOB, CAROL];

/** A DM channel per test (any id the fake's guild does not know is a DM with the author). */
const dm = (n: number) => `40000000000000000${n}`;
/** Guild channels beside the fake's own, announced by CHANNEL_CREATE on their first message. */
const guildChannel = (n: number) => `50000000000000000${n}`;

const EPHEMERAL = 1 << 6;

/**
 * The Discord door end to end: the real discord.js Client against a fake Discord on loopback (its
 * REST API over HTTP and its gateway over a WebSocket, speaking the real frames), messages through
 * the same services as the API to the real workers and the fake assistant, and replies through the
 * chat reply workflow's activities (@discordjs/rest).
 */
describe('the Discord door (discord.js against a fake Discord, live workers, fake assistant)', function () {
  this.timeout(2 * 60_000);
  const [sqlite] = databaseKinds();
  let discord: FakeDiscord;
  let core: LiveCore;
  let receiver: DiscordReceiver | undefined;
  let currentState: () => AdapterState | undefined = () => undefined;

  async function useReceiver(mode: ChatStreamingMode, token = discord.token): Promise<DiscordReceiver> {
    await receiver?.stop();
    const started = new DiscordReceiver({
      connection: { token, apiUrl: discord.restUrl },
      door: chatDoorServices(core.context, core.workers.temporal.client, {
        taskQueue: core.workers.taskQueue,
        searchAttributes: false,
        maxConcurrent: 4,
      }),
      settings: { mode, botName: 'Cairn', allowedUserIds: ALLOWED },
      logger: core.context.logger,
    });
    started.start();
    receiver = started;
    currentState = () => started.state;
    return started;
  }

  async function connected(mode: ChatStreamingMode): Promise<void> {
    await useReceiver(mode);
    await discord.waitFor(() => receiver?.state.status === 'ready', 'the receiver to be ready');
  }

  /** The bot's visible messages (ephemeral notices left out) in a channel once `done` holds for them. */
  async function botMessagesWhen(channelId: string, done: (messages: BotMessage[]) => boolean, what: string) {
    return discord.waitFor(() => {
      const messages = visible(channelId);
      return done(messages) ? messages : undefined;
    }, what);
  }

  const visible = (channelId: string) =>
    discord.messages(channelId).filter((message) => (message.flags & EPHEMERAL) === 0);
  const notices = (channelId: string) =>
    discord.messages(channelId).filter((message) => (message.flags & EPHEMERAL) !== 0);
  const turns = () =>
    core.fakes.invocations().filter((entry) => !String(entry.prompt).startsWith('Reply with only'));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

  before(async () => {
    discord = await startFakeDiscord();
    core = await startLiveCore(
      sqlite!,
      { 'README.md': '# shop\n', '.cairn/workflows/gated.yaml': GATED_WORKFLOW },
      {
        env: { DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.restUrl },
        app: { adapters: ['web', 'discord'], chatAdapterStates: () => ({ discord: currentState() }) },
      },
    );
  });

  after(async () => {
    await receiver?.stop();
    await core?.close();
    await discord?.close();
  });

  it('streams an answer: a placeholder replying to the message, edited as the text arrives, the last edit final', async () => {
    await connected('stream');
    // About 2.5 s of streaming (8 characters every 120 ms): more than two edit intervals.
    const answer =
      'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun ' +
      'until the shadows grow long and the evening wind carries the smell of rain over the hills.';
    const asked = discord.pushMessage({
      channelId: dm(1),
      authorId: ALICE,
      content: `[fake:slow 120]\n[fake:reply ${answer}]`,
    });
    const [message] = await botMessagesWhen(dm(1), (all) => all[0]?.content === answer, 'the final answer');
    expect(message!.history[0]).to.equal('…');
    expect(message!.replyTo).to.equal(asked.messageId);
    expect(message!.edits).to.be.at.least(2);
    const partial = message!.history.slice(1, -1);
    expect(partial.length, 'edits while the text streamed').to.be.at.least(1);
    for (const text of partial) expect(answer.startsWith(text.replace(/…$/, '').trim())).to.equal(true);
    // Edits of one message stay at least the door's interval apart (Discord allows 5 per 5 s).
    const edits = discord.callsOf(`PATCH /channels/${dm(1)}/messages/${message!.id}`);
    expect(edits.length).to.equal(message!.edits);
    for (let i = 1; i < edits.length; i++) {
      expect(edits[i]!.at - edits[i - 1]!.at).to.be.at.least(DISCORD_EDIT_INTERVAL_MS);
    }
  });

  it('answers a mention in a guild channel and a direct message, and leaves other guild messages alone', async () => {
    const turnsBefore = turns().length;
    const chatter = discord.pushMessage({
      channelId: discord.channelId,
      authorId: BOB,
      content: '[fake:reply not for you] anyone around?',
    });
    const mention = discord.pushMessage({
      channelId: discord.channelId,
      authorId: BOB,
      content: '[fake:reply pong from the guild]',
      mentionsBot: true,
    });
    const direct = discord.pushMessage({
      channelId: dm(2),
      authorId: BOB,
      content: '[fake:reply pong in private]',
    });

    const [inGuild] = await botMessagesWhen(
      discord.channelId,
      (all) => all[0]?.content === 'pong from the guild',
      'the guild answer',
    );
    const [inDm] = await botMessagesWhen(
      dm(2),
      (all) => all[0]?.content === 'pong in private',
      'the DM answer',
    );
    expect(inGuild!.replyTo).to.equal(mention.messageId);
    expect(inDm!.replyTo).to.equal(direct.messageId);
    await settle();
    expect(visible(discord.channelId)).to.have.length(1);
    expect(visible(discord.channelId).some((message) => message.replyTo === chatter.messageId)).to.equal(
      false,
    );
    const prompts = turns()
      .slice(turnsBefore)
      .map((entry) => String(entry.prompt));
    expect(prompts).to.have.length(2);
    expect(prompts.join('\n')).to.not.contain('anyone around');
    // The mention is taken out of what the assistant reads.
    expect(prompts.join('\n')).to.not.contain(`<@${discord.botUser.id}>`);
  });

  it('talks in a thread once mentioned there: its later messages need no mention, another thread stays quiet', async () => {
    const [talking, quiet] = ['700000000000000001', '700000000000000002'];
    const inThread = (threadId: string, content: string, mentionsBot = false) =>
      discord.pushMessage({ channelId: discord.channelId, threadId, authorId: CAROL, content, mentionsBot });
    inThread(talking, '[fake:reply first in the thread]', true);
    await botMessagesWhen(talking, (all) => all[0]?.content === 'first in the thread', 'the first answer');
    inThread(quiet, '[fake:reply nobody asked me]');
    const followUp = inThread(talking, '[fake:reply second in the thread]');
    const answers = await botMessagesWhen(
      talking,
      (all) => all[1]?.content === 'second in the thread',
      'the answer without a mention',
    );
    expect(answers[1]!.replyTo).to.equal(followUp.messageId);
    await settle();
    expect(visible(quiet)).to.deep.equal([]);
  });

  it('in batch mode sends a starting line naming the bot, then the answer as a message of its own', async () => {
    await connected('batch');
    discord.pushMessage({
      channelId: dm(3),
      authorId: ALICE,
      content: '[fake:tool Bash {"command":"npm test"}]\n[fake:reply all green]',
    });
    const messages = await botMessagesWhen(
      dm(3),
      (all) => all.at(-1)?.content === 'all green',
      'the batch answer',
    );
    expect(messages).to.have.length(2);
    const [start, answer] = messages;
    expect(start!.history[0]).to.equal('Cairn is working on it…');
    expect(start!.content).to.match(/^Cairn answered \(1 tool call\)\.$/);
    expect(answer!.edits).to.equal(0);
  });

  it("splits a 6,000-character answer with a code block into messages under 2,000 characters, the block whole; the assistant's mentions ping no one", async () => {
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(30);
    const code = Array.from({ length: 60 }, (_, i) => `const value${i} = compute(${i}) && check(${i} < 10);`);
    const pings = `Thanks <@${ALICE}>, <@&600000000000000001> and @everyone.`;
    const long = `${pings}\n\n${paragraph}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${paragraph}\n\n${paragraph}`;
    expect(long.length).to.be.above(6_000);
    discord.pushMessage({
      channelId: dm(4),
      authorId: ALICE,
      content: `[fake:reply-json ${JSON.stringify(long)}]`,
    });
    const lorem = (messages: BotMessage[]) =>
      messages.map((message) => message.content.split('Lorem ipsum').length - 1).reduce((a, b) => a + b, 0);
    const messages = await botMessagesWhen(dm(4), (all) => lorem(all) === 3 * 30, 'every part');
    expect(messages[0]!.content).to.equal('Cairn answered.');
    const parts = messages.slice(1);
    expect(parts.length).to.be.at.least(4);
    for (const part of parts) {
      // The fake refuses more than 2,000 characters, as Discord does: each part got through.
      expect(part.content.length).to.be.at.most(2_000);
      // Every part opens and closes its fences: a block cut in two is closed and reopened as ts.
      const fences = part.content.split('\n').filter((line) => line.startsWith('```'));
      expect(fences.length % 2, part.content).to.equal(0);
      for (let i = 0; i < fences.length; i += 2) expect(fences[i]).to.equal('```ts');
    }
    const all = parts.map((part) => part.content).join('\n');
    for (const line of code) expect(all).to.contain(line);
    expect(parts[0]!.content).to.contain(pings);
    for (const message of messages)
      expect(message.pings).to.deep.equal({ users: [], roles: [], everyone: false });
    const writes = [
      ...discord.callsOf(`POST /channels/${dm(4)}/messages`),
      ...discord
        .callsOf('PATCH /channels/:channelId/messages/:messageId')
        .filter((call) => call.path.startsWith(`/channels/${dm(4)}/`)),
    ];
    expect(writes.length).to.be.above(parts.length);
    for (const call of writes) expect(call.body).to.deep.include({ allowed_mentions: { parse: [] } });
  });

  it('refuses a user who is not on the allow-list once, and starts nothing', async () => {
    const turnsBefore = turns().length;
    discord.pushMessage({ channelId: dm(5), authorId: STRANGER, content: 'let me in' });
    const [refusal] = await botMessagesWhen(dm(5), (all) => all.length === 1, 'the refusal');
    expect(refusal!.content).to.contain('not allowed').and.contain(STRANGER);
    // A later message is handled, so the stranger's was too: nothing more came of it.
    discord.pushMessage({ channelId: dm(6), authorId: BOB, content: '/help' });
    await botMessagesWhen(dm(6), (all) => all.length === 1, 'a later answer');
    await settle();
    expect(visible(dm(5))).to.have.length(1);
    expect(turns().length).to.equal(turnsBefore);
  });

  it('registers /cairn and runs Cairn commands through it, acknowledged at once to the user alone', async () => {
    await discord.waitFor(
      () => discord.commands.find((command) => command.name === 'cairn'),
      'the registration',
    );
    const channel = discord.channelId;
    const before = visible(channel).length;
    const status = discord.pushSlashCommand({
      channelId: channel,
      userId: BOB,
      name: 'cairn',
      options: { command: 'status' },
    });
    const answered = await botMessagesWhen(channel, (all) => all.length === before + 1, 'the status');
    expect(answered.at(-1)!.content.toLowerCase()).to.contain('no turn');
    const ack = discord.interactionCallbacks.find(
      (callback) => callback.interactionId === status.interactionId,
    );
    expect(ack?.type).to.equal(4);
    expect(Number((ack?.data as { flags?: number } | undefined)?.flags) & 64, 'ephemeral').to.equal(64);
    discord.pushSlashCommand({ channelId: channel, userId: BOB, name: 'cairn' });
    const help = await botMessagesWhen(channel, (all) => all.length === before + 2, 'the help');
    expect(help.at(-1)!.content).to.contain('/workflow run');
  });

  it('waits out a 429 with its retry_after and delivers the message once', async () => {
    discord.failNext(`POST /channels/${dm(7)}/messages`, { status: 429, retryAfterSeconds: 1 });
    discord.pushMessage({ channelId: dm(7), authorId: CAROL, content: '/help' });
    const [help] = await botMessagesWhen(dm(7), (all) => all.length >= 1, 'the help after the wait');
    await settle();
    expect(visible(dm(7))).to.have.length(1);
    expect(help!.content).to.contain('/workflow run');
    const posts = discord.callsOf(`POST /channels/${dm(7)}/messages`);
    expect(posts.map((call) => call.status)).to.deep.equal([429, 200]);
    expect(posts[1]!.at - posts[0]!.at).to.be.at.least(1_000);
  });

  it('answers a message the gateway replays on RESUME only once', async () => {
    const asked = discord.pushMessage({
      channelId: dm(8),
      authorId: CAROL,
      content: '[fake:reply once only]',
    });
    const answered = await botMessagesWhen(dm(8), (all) => all.at(-1)?.content === 'once only', 'the answer');
    const turnsBefore = turns().length;
    const identifiesBefore = discord.identifies.length;
    // The connection drops; on RESUME the gateway sends the message again, as if never seen.
    await discord.dropConnection({ replayAfter: asked.seq! - 1 });
    await discord.waitFor(() => discord.resumes.length === 1, 'the resume');
    expect(discord.resumes[0]!.replayed).to.include(asked.seq);
    expect(discord.identifies).to.have.length(identifiesBefore);
    // Handled after the replay: the replayed message had its turn to be answered again.
    discord.pushMessage({ channelId: dm(8), authorId: CAROL, content: '/help' });
    await botMessagesWhen(dm(8), (all) => all.length === answered.length + 1, 'the help after the resume');
    await settle();
    expect(visible(dm(8))).to.have.length(answered.length + 1);
    expect(turns().length).to.equal(turnsBefore);
  });

  it('/cancel stops the running turn through the turn-cancel API, and the answer says so', async () => {
    await connected('stream');
    discord.pushMessage({
      channelId: dm(9),
      authorId: ALICE,
      content: `[fake:slow 200]\n[fake:reply ${'word '.repeat(60)}]`,
    });
    const answer = await discord.waitFor(
      () => visible(dm(9)).find((message) => message.content.includes('word')),
      'the answer to stream',
    );
    discord.pushMessage({ channelId: dm(9), authorId: ALICE, content: '/cancel' });
    await discord.waitFor(
      () =>
        visible(dm(9))
          .find((message) => message.id === answer.id)
          ?.content.includes('Cancelled'),
      'the cancelled answer',
    );
    const final = visible(dm(9)).find((message) => message.id === answer.id)!;
    expect(final.content.split('word').length - 1).to.be.below(60);
  });

  it('posts the gate of a run started in a guild channel with buttons: Approve completes it once, Reject asks for a reason in a modal', async () => {
    const api = jsonClient(core.app.url);
    const registered = await api<{ name: string }>('POST', '/api/codebases', { path: core.repo.path });
    expect(registered.status).to.be.oneOf([200, 201]);
    const channel = guildChannel(1);
    const say = (content: string) =>
      discord.pushMessage({
        channelId: channel,
        guildId: discord.guildId,
        authorId: ALICE,
        content,
        mentionsBot: true,
      });
    say(`/codebase ${registered.body.name}`);
    await botMessagesWhen(channel, (all) => all.length === 1, 'the codebase answer');
    expect(visible(channel)[0]!.content).to.contain('new conversation');

    /** Starts the gated workflow; answers its progress and gate messages once the gate waits. */
    async function startGatedRun() {
      const before = visible(channel).length;
      say('/workflow run gated ship the thing');
      const messages = await botMessagesWhen(
        channel,
        (all) => all.slice(before).some((message) => message.content.includes('Approval needed')),
        'the gate message',
      );
      const fresh = messages.slice(before);
      const runId = /Started run `([0-9a-f-]{36})`/.exec(fresh[0]!.content)?.[1];
      expect(runId, fresh[0]!.content).to.be.a('string');
      const progress = fresh.find((message) => message.content.startsWith('Run **gated**'))!;
      const gate = fresh.find((message) => message.content.includes('Approval needed'))!;
      expect(gate.content).to.contain('Ship it?');
      const [row] = gate.components as Array<{ components: Array<Record<string, unknown>> }>;
      const [approve, reject] = row!.components;
      expect(approve).to.deep.include({ type: 2, label: '✅ Approve', style: 3 });
      expect(reject).to.deep.include({ type: 2, label: '❌ Reject', style: 4 });
      // The run and the ask of its gate: an old message's button cannot decide a newer ask.
      expect(approve!.custom_id).to.match(new RegExp(`^approve:${runId}:\\d+$`));
      expect(reject!.custom_id).to.equal(String(approve!.custom_id).replace('approve', 'reject'));
      return {
        runId: runId!,
        progress,
        gate,
        approve: String(approve!.custom_id),
        reject: String(reject!.custom_id),
      };
    }
    const current = (id: string) => visible(channel).find((message) => message.id === id)!;
    const eventsOf = async (runId: string) =>
      (
        await api<{ run: { status: string }; events: Array<{ type: string }> }>(
          'GET',
          `/api/workflows/runs/${runId}`,
        )
      ).body;

    // Approve, pressed twice at once (two people, the same moment): one approval, the buttons go.
    const first = await startGatedRun();
    const press = (userId: string) =>
      discord.pushButton({ channelId: channel, messageId: first.gate.id, userId, customId: first.approve });
    press(ALICE);
    press(BOB);
    await discord.waitFor(() => notices(channel).length === 2, 'both presses answered');
    const answers = notices(channel).map((notice) => notice.content);
    expect(answers.filter((text) => text.includes('Approved run'))).to.have.length(1);
    await discord.waitFor(
      () => current(first.gate.id).content.includes('✅ Approved by discord:'),
      'the decision',
    );
    expect(current(first.gate.id).components).to.deep.equal([]);
    await discord.waitFor(
      () => current(first.progress.id).content.includes('completed'),
      'the run to complete',
    );
    expect(current(first.progress.id).content).to.contain('✅ after');
    const approved = await eventsOf(first.runId);
    expect(approved.run.status).to.equal('completed');
    expect(approved.events.filter((event) => event.type === 'approval_received')).to.have.length(1);
    // Once decided there is no button left to press.
    expect(() => press(CAROL)).to.throw(/no enabled button/);

    // Reject: the reason's modal, then its submission rejects the run with that reason.
    const second = await startGatedRun();
    discord.pushButton({
      channelId: channel,
      messageId: second.gate.id,
      userId: ALICE,
      customId: second.reject,
    });
    const modal = await discord.waitFor(
      () => discord.interactionCallbacks.find((callback) => callback.type === 9),
      'the reason modal',
    );
    const modalId = String(modal.data?.custom_id);
    expect(modalId).to.contain(second.runId);
    discord.pushModalSubmit({
      channelId: channel,
      userId: ALICE,
      customId: modalId,
      values: { reason: 'not this week' },
      messageId: second.gate.id,
    });
    await discord.waitFor(
      () => current(second.gate.id).content.includes(`❌ Rejected by discord:${ALICE}: not this week`),
      'the rejection',
    );
    expect(current(second.gate.id).components).to.deep.equal([]);
    await discord.waitFor(
      () => current(second.progress.id).content.includes('cancelled'),
      'the cancelled run',
    );
    expect((await eventsOf(second.runId)).run.status).to.equal('cancelled');
  });

  it('keeps the service healthy with a wrong token, and /api/health says why', async () => {
    const wrong = `${Buffer.from('999999999999999999').toString('base64url')}.WRONG.not-the-token`;
    await useReceiver('batch', wrong);
    const body = await waitForChatHealth(core.app.url, (chat) => chat.discord.status === 'failing');
    expect(body.status).to.equal('ok');
    expect(body.chat.discord.detail).to.contain('DISCORD_BOT_TOKEN').and.not.contain('WRONG');
    expect(discord.callsOf('GET /gateway/bot').at(-1)).to.include({ status: 401 });
    await useReceiver('batch');
    const ready = await waitForChatHealth(core.app.url, (chat) => chat.discord.status === 'ready');
    expect(ready.chat.discord.detail).to.equal('@cairn');
  });

  it('starts over when the gateway closes for good mid-session (a reset token), and answers again once back', async () => {
    await connected('batch');
    const identifiesBefore = discord.identifies.length;
    await discord.closeConnection(4004);
    const failing = await waitForChatHealth(core.app.url, (chat) => chat.discord.status === 'failing');
    expect(failing.status).to.equal('ok');
    expect(failing.chat.discord.detail).to.contain('DISCORD_BOT_TOKEN');
    await waitForChatHealth(core.app.url, (chat) => chat.discord.status === 'ready');
    expect(discord.identifies).to.have.length(identifiesBefore + 1);
    discord.pushMessage({ channelId: dm(10), authorId: ALICE, content: '[fake:reply back again]' });
    await botMessagesWhen(
      dm(10),
      (all) => all.at(-1)?.content === 'back again',
      'an answer after the new login',
    );
  });
});
