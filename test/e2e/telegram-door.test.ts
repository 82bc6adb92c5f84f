import { expect } from 'chai';
import { chatDoorServices } from '../../cli/boot/chat-adapters.js';
import { TelegramReceiver } from '../../adapters/telegram/telegram-receiver.js';
import type { AdapterState } from '../../domain/chat/adapter-state.js';
import type { ChatStreamingMode } from '../../domain/chat/chat-reply.js';
import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import {
  rateLimited,
  startFakeTelegram,
  type BotMessage,
  type FakeTelegram,
} from '../support/fakes/telegram-bot-api.js';
import { jsonClient } from '../support/json-client.js';
import { waitForChatHealth } from '../support/chat-health.js';

const ALLOWED = [111, 222, 333, 444, 555, 666];

const STRANGER = 999;

/**
 * The Telegram door end to end: grammy long-polls a fake Bot API on loopback, messages go through
 * the same services as the API to the real workers and the fake assistant, and replies come back
 * through the chat reply workflow's activities.
 */
describe('the Telegram door (grammy against a fake Bot API, live workers, fake assistant)', function () {
  this.timeout(2 * 60_000);
  const [sqlite] = databaseKinds();
  let telegram: FakeTelegram;
  let core: LiveCore;
  let receiver: TelegramReceiver | undefined;
  let currentState: () => AdapterState | undefined = () => undefined;

  function startReceiver(mode: ChatStreamingMode, token = telegram.token): TelegramReceiver {
    const started = new TelegramReceiver({
      connection: { token, apiRoot: telegram.apiRoot },
      door: chatDoorServices(core.context, core.workers.temporal.client, {
        taskQueue: core.workers.taskQueue,
        searchAttributes: false,
        maxConcurrent: 4,
      }),
      settings: { mode, botName: 'Cairn', allowedUserIds: ALLOWED.map(String) },
      logger: core.context.logger,
      pollTimeoutSeconds: 1,
    });
    started.start();
    return started;
  }

  async function useReceiver(mode: ChatStreamingMode, token?: string): Promise<TelegramReceiver> {
    await receiver?.stop();
    receiver = startReceiver(mode, token);
    const current = receiver;
    currentState = () => current.state;
    return current;
  }

  /** The bot's messages in a chat once the last one shows `done` (the turn's final edit). */
  async function botMessagesWhen(chatId: number, done: (messages: BotMessage[]) => boolean, what: string) {
    return telegram.waitFor(() => {
      const messages = telegram.messages(chatId);
      return done(messages) ? messages : undefined;
    }, what);
  }

  before(async () => {
    telegram = await startFakeTelegram();
    core = await startLiveCore(
      sqlite!,
      { 'README.md': '# shop\n', '.cairn/workflows/gated.yaml': GATED_WORKFLOW },
      {
        env: { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot },
        app: { adapters: ['web', 'telegram'], chatAdapterStates: () => ({ telegram: currentState() }) },
      },
    );
  });

  after(async () => {
    await receiver?.stop();
    await core?.close();
    await telegram?.close();
  });

  it('streams an answer: a placeholder replying to the message, edited as the text arrives, the last edit final', async () => {
    await useReceiver('stream');
    // About 2.5 s of streaming (8 characters every 120 ms): more than two edit intervals.
    const answer =
      'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun ' +
      'until the shadows grow long and the evening wind carries the smell of rain over the hills.';
    telegram.pushMessage({
      chatId: 111,
      userId: 111,
      text: `[fake:slow 120]\n[fake:reply ${answer}]`,
    });
    const [message] = await botMessagesWhen(111, (all) => all[0]?.text === answer, 'the final answer');
    expect(message!.history[0]).to.equal('…');
    expect(message!.edits).to.be.at.least(2);
    const partial = message!.history.slice(1, -1);
    expect(partial.length, 'edits while the text streamed').to.be.at.least(1);
    for (const text of partial) expect(answer.startsWith(text.replace(/…$/, '').trim())).to.equal(true);
    const send = telegram.callsOf('sendMessage').find((call) => call.params.chat_id === 111);
    // The user's message is the chat's first (message_id 1): the answer replies to it.
    expect(send?.params.reply_parameters).to.deep.include({ message_id: 1 });
    // Edits of one message stay at least the platform's interval apart.
    const edits = telegram.callsOf('editMessageText').filter((call) => call.params.chat_id === 111);
    for (let i = 1; i < edits.length; i++) expect(edits[i]!.at - edits[i - 1]!.at).to.be.at.least(1_000);
  });

  it('answers /help and /status as commands, without a turn', async () => {
    const turnsBefore = core.fakes.invocations().length;
    telegram.pushMessage({ chatId: 222, userId: 222, text: '/help' });
    const [help] = await botMessagesWhen(222, (all) => all.length === 1, 'the help');
    expect(help!.text).to.contain('/workflow run').and.contain('/cancel');
    telegram.pushMessage({ chatId: 222, userId: 222, text: '/status@cairn_test_bot' });
    const after = await botMessagesWhen(222, (all) => all.length === 2, 'the status');
    expect(after[1]!.text.toLowerCase()).to.contain('no turn');
    expect(core.fakes.invocations().length).to.equal(turnsBefore);
  });

  it('refuses a user who is not on the allow-list once, and starts nothing', async () => {
    const turnsBefore = core.fakes.invocations().length;
    telegram.pushMessage({ chatId: STRANGER, userId: STRANGER, text: 'let me in' });
    const [refusal] = await botMessagesWhen(STRANGER, (all) => all.length === 1, 'the refusal');
    expect(refusal!.text).to.contain('not allowed').and.contain(String(STRANGER));
    // Later updates are handled, so the stranger's was too: nothing more came of it.
    telegram.pushMessage({ chatId: 222, userId: 222, text: '/help' });
    await botMessagesWhen(222, (all) => all.length === 3, 'a later answer');
    expect(telegram.messages(STRANGER)).to.have.length(1);
    expect(core.fakes.invocations().length).to.equal(turnsBefore);
  });

  it('splits a 6,000-character answer with a code block into valid messages that keep the block whole', async () => {
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(30);
    const code = Array.from({ length: 60 }, (_, i) => `const value${i} = compute(${i}) && check(${i} < 10);`);
    const long = `${paragraph}\n\n${paragraph}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${paragraph}\n\n${paragraph}`;
    expect(long.length).to.be.above(6_000);
    telegram.pushMessage({ chatId: 333, userId: 333, text: `[fake:reply-json ${JSON.stringify(long)}]` });
    const messages = await botMessagesWhen(
      333,
      (all) => all.length >= 2 && all.at(-1)!.text.includes('Lorem') && !all[0]!.text.startsWith('…'),
      'every part',
    );
    // The fake refuses malformed HTML and texts over 4,096 characters: each part got through.
    const html = messages.map((message) => message.text).join('\n');
    const blocks = html.match(/<pre><code class="language-ts">[\s\S]*?<\/code><\/pre>/g) ?? [];
    expect(blocks.length).to.be.at.least(1);
    for (let i = 0; i < code.length; i++)
      expect(html).to.contain(`const value${i} = compute(${i}) &amp;&amp; check(${i} &lt; 10);`);
  });

  it('waits out a 429 with its retry_after and delivers the message once', async () => {
    telegram.failNext('sendMessage', rateLimited(1));
    telegram.pushMessage({ chatId: 444, userId: 444, text: '/help' });
    const messages = await botMessagesWhen(444, (all) => all.length >= 1, 'the help after the wait');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(telegram.messages(444)).to.have.length(1);
    expect(messages[0]!.text).to.contain('/help');
  });

  it('/cancel stops the running turn through the turn-cancel API, and the answer says so', async () => {
    const before = telegram.messages(444).length;
    telegram.pushMessage({
      chatId: 444,
      userId: 444,
      text: `[fake:slow 200]\n[fake:reply ${'word '.repeat(60)}]`,
    });
    const answer = await telegram.waitFor(() => {
      const placeholder = telegram.messages(444)[before];
      return placeholder && placeholder.text.includes('word') ? placeholder : undefined;
    }, 'the answer to stream');
    telegram.pushMessage({ chatId: 444, userId: 444, text: '/cancel' });
    await telegram.waitFor(
      () =>
        telegram
          .messages(444)
          .find((message) => message.messageId === answer.messageId)
          ?.text.includes('Cancelled'),
      'the cancelled answer',
    );
    const final = telegram.messages(444).find((message) => message.messageId === answer.messageId)!;
    expect(final.text.split('word').length - 1).to.be.below(60);
  });

  it('answers a redelivered update (after a restart) only once', async () => {
    const updateId = telegram.pushMessage({ chatId: 555, userId: 555, text: '[fake:reply once only]' });
    await botMessagesWhen(555, (all) => all[0]?.text === 'once only', 'the answer');
    const turnsBefore = core.fakes.invocations().length;
    await receiver!.stop();
    telegram.redeliver(updateId);
    await useReceiver('stream');
    await telegram.waitFor(() => telegram.pendingUpdateIds().length === 0, 'the redelivery to be confirmed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(telegram.messages(555)).to.have.length(1);
    expect(core.fakes.invocations().length).to.equal(turnsBefore);
  });

  it('in batch mode sends a starting line naming the bot, then the answer as a message of its own', async () => {
    await useReceiver('batch');
    telegram.pushMessage({
      chatId: 111,
      userId: 111,
      text: '[fake:tool Bash {"command":"npm test"}]\n[fake:reply all green]',
    });
    const messages = await botMessagesWhen(
      111,
      (all) => all.at(-1)?.text === 'all green',
      'the batch answer',
    );
    const [start, answer] = messages.slice(-2);
    expect(start!.history[0]).to.equal('Cairn is working on it…');
    expect(start!.text).to.match(/^Cairn answered \(1 tool call\)\.$/);
    expect(answer!.edits).to.equal(0);
  });

  it('reports a run started from the chat, and decides its gates with buttons, a reply, or on the web', async () => {
    await useReceiver('stream');
    const api = jsonClient(core.app.url);
    const registered = await api<{ name: string }>('POST', '/api/codebases', { path: core.repo.path });
    expect(registered.status).to.be.oneOf([200, 201]);
    const chat = 666;
    const say = (text: string) => telegram.pushMessage({ chatId: chat, userId: chat, text });
    const lastText = () => telegram.messages(chat).at(-1)?.text ?? '';
    say(`/codebase ${registered.body.name}`);
    await botMessagesWhen(chat, (all) => all.length === 1, 'the codebase answer');
    expect(lastText()).to.contain('new conversation');

    /** Starts the gated workflow and answers its progress and gate messages once the gate waits. */
    async function startGatedRun() {
      const before = telegram.messages(chat).length;
      say('/workflow run gated');
      const messages = await botMessagesWhen(
        chat,
        (all) => all.slice(before).some((message) => message.text.includes('Approval needed')),
        'the gate message',
      );
      const fresh = messages.slice(before);
      const runId = /Started run <code>([0-9a-f-]{36})<\/code>/.exec(fresh[0]!.text)?.[1];
      expect(runId, fresh[0]!.text).to.be.a('string');
      const progress = fresh.find((message) => message.text.startsWith('Run <b>gated</b>'))!;
      const gate = fresh.find((message) => message.text.includes('Approval needed'))!;
      expect(gate.text).to.contain('Ship it?');
      const [[approve, reject]] = (
        gate.replyMarkup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }
      ).inline_keyboard as [
        [{ text: string; callback_data: string }, { text: string; callback_data: string }],
      ];
      expect(approve.text).to.equal('✅ Approve');
      expect(reject.text).to.equal('❌ Reject');
      // The run and the ask of its gate: an old message's button cannot decide a newer ask.
      expect(approve.callback_data).to.match(new RegExp(`^approve:${runId}:\\d+$`));
      expect(reject.callback_data).to.equal(approve.callback_data.replace('approve', 'reject'));
      return { runId: runId!, progress, gate, approve: approve.callback_data, reject: reject.callback_data };
    }
    const current = (messageId: number) =>
      telegram.messages(chat).find((message) => message.messageId === messageId)!;

    // Approve with the button: answered, the buttons go, the decision shows, the run completes.
    const first = await startGatedRun();
    telegram.pushCallback({
      chatId: chat,
      userId: chat,
      messageId: first.gate.messageId,
      data: first.approve,
    });
    await telegram.waitFor(
      () => current(first.gate.messageId).text.includes('Approved by telegram:666'),
      'the decision',
    );
    expect(current(first.gate.messageId).replyMarkup ?? { inline_keyboard: [] }).to.deep.equal({
      inline_keyboard: [],
    });
    expect(telegram.callbackAnswers.at(-1)?.text).to.contain('Approved run');
    await telegram.waitFor(
      () => current(first.progress.messageId).text.includes('completed'),
      'the run to complete',
    );
    expect(current(first.progress.messageId).text).to.contain('✅ after');
    // A second press of the same button changes nothing and says why.
    telegram.pushCallback({
      chatId: chat,
      userId: chat,
      messageId: first.gate.messageId,
      data: first.approve,
    });
    await telegram.waitFor(() => telegram.callbackAnswers.length >= 2, 'the second answer');
    expect(telegram.callbackAnswers.at(-1)?.text).to.not.contain('Approved run');
    const detail = await api<{ run: { status: string } }>('GET', `/api/workflows/runs/${first.runId}`);
    expect(detail.body.run.status).to.equal('completed');

    // Reject asks for a reason; the reply to that question rejects the run with it.
    const second = await startGatedRun();
    telegram.pushCallback({
      chatId: chat,
      userId: chat,
      messageId: second.gate.messageId,
      data: second.reject,
    });
    const question = await telegram.waitFor(
      () =>
        telegram
          .messages(chat)
          .find((message) => message.text.includes(`Why reject run <code>${second.runId}`)),
      'the question',
    );
    telegram.pushUpdate({
      message: {
        message_id: 9_001,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chat, type: 'private', first_name: 'U' },
        from: { id: chat, is_bot: false, first_name: 'U' },
        text: 'not this week',
        reply_to_message: {
          message_id: question.messageId,
          date: 0,
          chat: { id: chat, type: 'private', first_name: 'U' },
          from: { id: telegram.botId, is_bot: true, first_name: 'Cairn' },
          text: `Why reject run ${second.runId}? Reply to this message with the reason.`,
        },
      },
    });
    await telegram.waitFor(
      () => current(second.gate.messageId).text.includes('Rejected by telegram:666: not this week'),
      'the rejection',
    );
    await telegram.waitFor(
      () => current(second.progress.messageId).text.includes('cancelled'),
      'the cancelled run',
    );

    // Approved on the web page (the API): the chat's gate message follows.
    const third = await startGatedRun();
    const approved = await api('POST', `/api/workflows/runs/${third.runId}/approve`, {
      comment: 'from the web',
    });
    expect(approved.status).to.equal(200);
    await telegram.waitFor(
      () => current(third.gate.messageId).text.includes('Approved by'),
      'the web decision',
    );
    expect(current(third.gate.messageId).text).to.contain('from the web');
    expect(current(third.gate.messageId).replyMarkup ?? { inline_keyboard: [] }).to.deep.equal({
      inline_keyboard: [],
    });
  });

  it('keeps the service healthy with a wrong token, and /api/health says why', async () => {
    await useReceiver('stream', '123456:WRONG');
    const body = await waitForChatHealth(core.app.url, (chat) => chat.telegram.status === 'failing');
    expect(body.status).to.equal('ok');
    expect(body.chat.telegram.detail).to.contain('TELEGRAM_BOT_TOKEN').and.not.contain('WRONG');
    expect(body.chat.discord).to.deep.equal({ status: 'not_configured' });
    await useReceiver('stream');
    const ready = await waitForChatHealth(core.app.url, (chat) => chat.telegram.status === 'ready');
    expect(ready.chat.telegram.detail).to.equal('@cairn_test_bot');
  });
});
