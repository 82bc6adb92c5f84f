import { expect } from 'chai';
import {
  App,
  LogLevel,
  SocketModeReceiver,
  webApi,
  type AppOptions,
  type BlockButtonAction,
  type Logger,
} from '@slack/bolt';
import { startFakeSlack, type FakeSlack } from '../../support/fakes/slack-api.js';
import { rejection } from '../../support/processes.js';

// Fast enough for a test, slow enough to prove WebClient waited for Retry-After itself.
const FAST_RETRIES = { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 1100 };
const SLACK_ACK_DEADLINE_MS = 3000;

interface LogEntry {
  level: LogLevel;
  message: string;
}

/** Bolt's Logger interface, kept in memory: the test output stays clean and a failure can show it. */
function recordingLogger(entries: LogEntry[]): Logger {
  let level = LogLevel.INFO;
  const record =
    (entryLevel: LogLevel) =>
    (...parts: unknown[]) =>
      void entries.push({ level: entryLevel, message: parts.map(String).join(' ') });
  return {
    debug: record(LogLevel.DEBUG),
    info: record(LogLevel.INFO),
    warn: record(LogLevel.WARN),
    error: record(LogLevel.ERROR),
    setLevel: (next: LogLevel) => void (level = next),
    getLevel: () => level,
    setName: () => undefined,
  };
}

const stopButton = (value: string) => [
  { type: 'section', block_id: 'status', text: { type: 'mrkdwn', text: '*running*' } },
  {
    type: 'actions',
    block_id: 'controls',
    elements: [{ type: 'button', action_id: 'stop', text: { type: 'plain_text', text: 'Stop' }, value }],
  },
];

// The fake Slack is only worth its tests if the real SDK cannot tell it from Slack: every test here
// drives it through a Bolt App in Socket Mode, over HTTP and a WebSocket, as the adapter under test will.
describe('fake Slack, driven by the real Bolt SDK in Socket Mode', () => {
  const im = 'D0IM';
  const channel = 'C0CHAN';
  const human = 'U0HUMAN';
  let fake: FakeSlack;
  let apps: App[] = [];
  let logs: LogEntry[] = [];

  beforeEach(async () => {
    fake = await startFakeSlack();
    logs = [];
  });

  afterEach(async function () {
    await Promise.all(apps.map((app) => app.stop()));
    apps = [];
    await fake.close();
    if (this.currentTest?.state === 'failed') console.log(logs);
  });

  /** The one change a production App needs: `clientOptions.slackApiUrl`, for its WebClient and socket. */
  function newApp(options: Partial<AppOptions> = {}): App {
    const app = new App({
      token: fake.botToken,
      appToken: fake.appToken,
      socketMode: true,
      logger: recordingLogger(logs),
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES },
      ...options,
    });
    apps.push(app);
    return app;
  }

  function expectAckedInTime(envelopeId: string | undefined): void {
    expect(envelopeId, 'an envelope').to.be.a('string');
    const delay = fake.ackDelayMs(envelopeId ?? '');
    expect(delay, `ack of ${envelopeId}`).to.be.a('number').and.below(SLACK_ACK_DEADLINE_MS);
  }

  async function platformError(call: Promise<unknown>): Promise<webApi.WebAPIPlatformError> {
    const error = await rejection(call);
    expect(error).to.be.instanceOf(webApi.WebAPIPlatformError);
    return error as webApi.WebAPIPlatformError;
  }

  it('connects with the app token through apps.connections.open and says hello', async () => {
    const app = newApp();

    await app.start();

    expect(fake.connections).to.equal(1);
    expect(fake.callsOf('apps.connections.open').map((call) => call.token)).to.deep.equal([fake.appToken]);
    // Bolt checks the bot token once, when the App is built.
    expect(fake.callsOf('auth.test').map((call) => call.token)).to.deep.equal([fake.botToken]);
  });

  it('delivers a DM and a mention, acks both at once, and keeps the threaded replies and edits', async () => {
    const app = newApp();
    app.message(async ({ message, say }) => {
      if (message.subtype === undefined) await say({ text: `echo: ${message.text}`, thread_ts: message.ts });
    });
    app.event('app_mention', async ({ event, client }) => {
      const posted = await client.chat.postMessage({
        channel: event.channel,
        thread_ts: event.ts,
        text: 'working…',
      });
      await client.chat.update({ channel: event.channel, ts: posted.ts ?? '', text: 'done', blocks: [] });
    });
    await app.start();

    const dm = fake.pushMessage({ channel: im, user: human, text: 'hello' });
    const mention = fake.pushMention({ channel, user: human, text: 'run it' });
    await fake.waitFor(() => fake.messages(im).length === 1, 'the DM reply');
    await fake.waitFor(() => fake.messages(channel)[0]?.edits === 1, 'the edited mention reply');

    expect(fake.messages(im)).to.deep.equal([
      {
        ts: fake.messages(im)[0]?.ts,
        text: 'echo: hello',
        threadTs: dm.ts,
        edits: 0,
        history: ['echo: hello'],
      },
    ]);
    expect(fake.messages(channel)).to.deep.include.members([
      {
        ts: fake.messages(channel)[0]?.ts,
        text: 'done',
        threadTs: mention.ts,
        edits: 1,
        history: ['working…', 'done'],
      },
    ]);
    expect(Number(fake.messages(channel)[0]?.ts)).to.be.above(Number(mention.ts));
    for (const eventId of [dm.eventId, mention.eventId])
      expectAckedInTime(fake.deliveries(eventId)[0]?.envelopeId);
    expect(fake.unacked()).to.deep.equal([]);
    // The listener's client is Bolt's per-team one: it carries the bot token and the team.
    const reply = fake.callsOf('chat.postMessage')[0];
    expect(reply?.token).to.equal(fake.botToken);
    expect(reply?.params).to.include({ team_id: fake.teamId, channel: im });
  });

  it('delivers a button press, which the listener acks, answers and uses to edit the message', async () => {
    const app = newApp();
    app.action<BlockButtonAction>('stop', async ({ ack, action, body, client, respond }) => {
      await ack();
      await respond({ text: `stopping ${action.value}`, response_type: 'ephemeral' });
      await client.chat.update({
        channel: body.channel?.id ?? '',
        ts: body.message?.ts ?? '',
        text: 'stopped',
        blocks: [],
      });
    });
    await app.start();
    const posted = await app.client.chat.postMessage({
      channel,
      text: 'running',
      blocks: stopButton('run-1'),
    });

    const envelopeId = fake.pushButton({
      channel,
      user: human,
      messageTs: posted.ts ?? '',
      actionId: 'stop',
    });
    await fake.waitFor(() => fake.messages(channel)[0]?.edits === 1, 'the edit');

    expectAckedInTime(envelopeId);
    expect(fake.delivery(envelopeId)?.ackPayload).to.deep.equal({});
    expect(fake.messages(channel)).to.deep.equal([
      { ts: posted.ts, text: 'stopped', edits: 1, history: ['running', 'stopped'] },
    ]);
    expect(fake.ephemerals(channel)).to.deep.equal([{ user: human, text: 'stopping run-1' }]);
    expect(fake.responses.map((response) => response.body)).to.deep.equal([
      { text: 'stopping run-1', response_type: 'ephemeral' },
    ]);
  });

  it('opens a modal with the trigger of a button press once, and delivers its submission', async () => {
    const app = newApp();
    const reasons: unknown[] = [];
    app.action<BlockButtonAction>('stop', async ({ ack, body, client }) => {
      await ack();
      await client.views.open({
        trigger_id: body.trigger_id,
        view: {
          type: 'modal',
          callback_id: 'reason',
          title: { type: 'plain_text', text: 'Why stop?' },
          submit: { type: 'plain_text', text: 'Stop' },
          blocks: [
            {
              type: 'input',
              block_id: 'reason',
              label: { type: 'plain_text', text: 'Reason' },
              element: { type: 'plain_text_input', action_id: 'text' },
            },
          ],
        },
      });
    });
    app.view('reason', async ({ ack, view }) => {
      reasons.push(view.state.values.reason?.text?.value);
      await ack({ response_action: 'clear' });
    });
    await app.start();
    const posted = await app.client.chat.postMessage({
      channel,
      text: 'running',
      blocks: stopButton('run-1'),
    });

    fake.pushButton({ channel, user: human, messageTs: posted.ts ?? '', actionId: 'stop', value: 'run-1' });
    const [opened] = await fake.waitFor(() => fake.views.length === 1 && fake.views, 'the modal');
    const submission = fake.pushViewSubmission({
      user: human,
      viewId: opened?.id ?? '',
      values: { reason: { text: { type: 'plain_text_input', value: 'wrong branch' } } },
    });
    await fake.waitFor(() => fake.acks.has(submission), 'the submission ack');
    const reused = await platformError(
      app.client.views.open({ trigger_id: opened?.triggerId ?? '', view: opened?.view ?? {} } as never),
    );

    expect(opened?.view).to.include({ type: 'modal', callback_id: 'reason', team_id: fake.teamId });
    expect(reasons).to.deep.equal(['wrong branch']);
    expect(fake.delivery(submission)?.ackPayload).to.deep.equal({ response_action: 'clear' });
    expect(reused.data.error).to.equal('invalid_trigger_id');
  });

  it('refuses wrong tokens with Slack error codes, as WebAPIPlatformError', async () => {
    const app = newApp({ token: 'xoxb-wrong', deferInitialization: true });
    const slack = (token: string) =>
      new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES });

    const init = await platformError(app.init());
    const authTest = await platformError(app.client.auth.test());
    const appTokenAsBot = await platformError(slack(fake.appToken).chat.postMessage({ channel, text: 'x' }));
    const botTokenForSocket = await platformError(slack(fake.botToken).apps.connections.open());
    const noToken = await platformError(slack('').auth.test());

    expect(init.data.error).to.equal('invalid_auth');
    expect(authTest.code).to.equal(webApi.ErrorCode.PlatformError);
    expect(authTest.data).to.include({ ok: false, error: 'invalid_auth' });
    expect(appTokenAsBot.data.error).to.equal('not_allowed_token_type');
    expect(botTokenForSocket.data.error).to.equal('not_allowed_token_type');
    expect(noToken.data.error).to.equal('not_authed');
  });

  it('fails the start of an App whose app token is wrong, without retrying', async () => {
    const app = newApp({ appToken: 'xapp-wrong' });

    const error = await platformError(app.start());

    expect(error.data.error).to.equal('invalid_auth');
    expect(fake.callsOf('apps.connections.open')).to.have.length(1);
    expect(fake.connections).to.equal(0);
  });

  it('refuses what Slack refuses in messages', async () => {
    const app = newApp();
    const post = (args: Record<string, unknown>) =>
      platformError(app.client.chat.postMessage({ channel, ...args } as never)).then((e) => e.data.error);
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

    expect(await post({ text: 'x'.repeat(40_001) })).to.equal('msg_too_long');
    expect(await post({})).to.equal('no_text');
    expect(await post({ blocks: [section('x'.repeat(3001))] })).to.equal('invalid_blocks');
    expect(await post({ blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) })).to.equal(
      'invalid_blocks',
    );
    expect(await post({ blocks: [{ text: 'no type' }] })).to.equal('invalid_blocks');
    expect(await post({ blocks: '{not json' })).to.equal('invalid_blocks_format');
    expect(await post({ channel: '#general', text: 'x' })).to.equal('channel_not_found');
    const unknownTs = await platformError(app.client.chat.update({ channel, ts: '1.000001', text: 'x' }));
    const tooLongSection = await platformError(
      app.client.chat.postMessage({ channel, blocks: [section('x'.repeat(3001))] } as never),
    );

    expect(unknownTs.data.error).to.equal('message_not_found');
    expect(tooLongSection.data.response_metadata?.messages).to.deep.equal([
      '[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
    ]);
    // The limits themselves are allowed.
    await app.client.chat.postMessage({
      channel,
      text: 'x'.repeat(40_000),
      blocks: [section('x'.repeat(3000))],
    });
    expect(fake.messages(channel)).to.have.length(1);
  });

  it('answers a 429 with Retry-After, which WebClient waits out and retries: the message arrives once', async () => {
    const app = newApp();
    app.message(async ({ message, say }) => {
      if (message.subtype === undefined) await say(`echo: ${message.text}`);
    });
    await app.start();
    fake.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });

    const { eventId } = fake.pushMessage({ channel: im, user: human, text: 'hi' });
    await fake.waitFor(() => fake.messages(im).length === 1, 'the reply', 5000);

    const [limited, retried] = fake.callsOf('chat.postMessage');
    expect(fake.callsOf('chat.postMessage')).to.have.length(2);
    expect((retried?.at ?? 0) - (limited?.at ?? 0)).to.be.at.least(1000);
    expect(fake.messages(im).map((message) => message.text)).to.deep.equal(['echo: hi']);
    // Bolt acks an event before its listeners run, so a slow listener does not delay the ack.
    const [delivery] = fake.deliveries(eventId);
    expectAckedInTime(delivery?.envelopeId);
    expect(delivery?.ackedAt).to.be.at.most(limited?.at ?? 0);
  });

  it('answers a planned error body once', async () => {
    const app = newApp();
    fake.failNext('chat.postMessage', { status: 200, body: { ok: false, error: 'is_archived' } });

    const error = await platformError(app.client.chat.postMessage({ channel, text: 'x' }));
    await app.client.chat.postMessage({ channel, text: 'x' });

    expect(error.data.error).to.equal('is_archived');
    expect(fake.messages(channel)).to.have.length(1);
  });

  it('resends an event with retry_attempt and retry_reason, and Bolt delivers it again', async () => {
    const app = newApp();
    const seen: Array<{ eventId: string; retryNum?: number; retryReason?: string }> = [];
    app.message(async ({ body, context }) => {
      seen.push({ eventId: body.event_id, retryNum: context.retryNum, retryReason: context.retryReason });
    });
    await app.start();

    const { eventId } = fake.pushMessage({ channel: im, user: human, text: 'once' });
    await fake.waitFor(() => seen.length === 1, 'the first delivery');
    const resent = fake.resend(eventId);
    await fake.waitFor(() => seen.length === 2, 'the redelivery');

    expect(seen).to.deep.equal([
      { eventId, retryNum: 0, retryReason: '' },
      { eventId, retryNum: 1, retryReason: 'timeout' },
    ]);
    const deliveries = fake.deliveries(eventId);
    expect(deliveries.map((d) => d.retryAttempt)).to.deep.equal([0, 1]);
    expect(deliveries[1]?.envelopeId).to.equal(resent).and.not.equal(deliveries[0]?.envelopeId);
    expectAckedInTime(resent);
  });

  it('sends disconnect frames; Bolt closes the socket, opens a new one after clientPingTimeout', async () => {
    // To set socket timings, build the SocketModeReceiver: its Web API client needs the URL too.
    const logger = recordingLogger(logs);
    const receiver = new SocketModeReceiver({
      appToken: fake.appToken,
      logger,
      clientPingTimeout: 200,
      installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES } },
    });
    const app = newApp({ appToken: undefined, socketMode: undefined, receiver, logger });
    const texts: string[] = [];
    app.message(
      async ({ message }) => void texts.push(message.subtype === undefined ? (message.text ?? '') : ''),
    );
    await app.start();

    fake.disconnect('refresh_requested');
    await fake.waitFor(() => fake.connectionsOpened === 2 && fake.connections === 1, 'the new connection');
    fake.pushMessage({ channel: im, user: human, text: 'after the refresh' });
    await fake.waitFor(() => texts.length === 1, 'the event on the new connection');

    expect(texts).to.deep.equal(['after the refresh']);
    expect(fake.callsOf('apps.connections.open')).to.have.length(2);
  });

  it('passes a listener error to app.error: an event is acked anyway, an action nobody acked is not', async () => {
    const app = newApp();
    const errors: string[] = [];
    app.error(async (error) => void errors.push(error.message));
    app.message(async () => {
      throw new Error('event listener failed');
    });
    app.action('stop', async () => {
      throw new Error('action listener failed');
    });
    await app.start();
    const posted = await app.client.chat.postMessage({
      channel,
      text: 'running',
      blocks: stopButton('run-1'),
    });

    const { eventId } = fake.pushMessage({ channel: im, user: human, text: 'hi' });
    const pressed = fake.pushButton({ channel, user: human, messageTs: posted.ts ?? '', actionId: 'stop' });
    await fake.waitFor(() => errors.length === 2, 'both errors');

    expect(errors).to.have.members(['event listener failed', 'action listener failed']);
    expectAckedInTime(fake.deliveries(eventId)[0]?.envelopeId);
    expect(fake.unacked()).to.deep.equal([pressed]);
  });

  it('answers conversations.info and users.info minimally', async () => {
    const app = newApp();
    await app.start();
    fake.pushMessage({ channel: im, user: human, text: 'hi' });

    const dm = await app.client.conversations.info({ channel: im });
    const room = await app.client.conversations.info({ channel });
    const user = await app.client.users.info({ user: human });
    const bot = await app.client.users.info({ user: fake.botUserId });

    expect(dm.channel).to.include({ id: im, is_im: true, user: human });
    expect(room.channel).to.include({ id: channel, is_channel: true, is_private: false });
    expect(user.user).to.include({ id: human, is_bot: false, team_id: fake.teamId });
    expect(bot.user).to.include({ id: fake.botUserId, is_bot: true });
  });
});
