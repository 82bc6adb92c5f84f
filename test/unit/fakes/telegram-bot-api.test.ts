import { expect } from 'chai';
import { Api, Bot, GrammyError, InlineKeyboard } from 'grammy';
import { rateLimited, startFakeTelegram, type FakeTelegram } from '../../support/fakes/telegram-bot-api.js';
import { rejection } from '../../support/processes.js';

// The fake Telegram Bot API is only worth its tests if the real SDK cannot tell it from Telegram:
// every test here drives it through grammy, over HTTP, as the bot under test will.
describe('fake Telegram Bot API, driven by the real grammy SDK', () => {
  const chatId = 4242;
  let fake: FakeTelegram;
  let bots: Bot[] = [];

  beforeEach(async () => {
    fake = await startFakeTelegram();
  });

  afterEach(async () => {
    await Promise.all(bots.map((bot) => bot.stop()));
    bots = [];
    await fake.close();
  });

  const api = (token = fake.token) => new Api(token, { apiRoot: fake.apiRoot });

  function startBot(setUp: (bot: Bot) => void): { bot: Bot; running: Promise<void> } {
    const bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
    bots.push(bot);
    setUp(bot);
    return { bot, running: bot.start({ timeout: 10 }) };
  }

  async function refusal(call: Promise<unknown>): Promise<GrammyError> {
    const error = await rejection(call);
    expect(error).to.be.instanceOf(GrammyError);
    return error as GrammyError;
  }

  it('answers getMe with the bot user', async () => {
    expect(await api().getMe()).to.deep.equal({
      id: 123456,
      is_bot: true,
      first_name: 'Cairn',
      username: 'cairn_test_bot',
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    });
    expect(fake.botId).to.equal(123456);
    expect(fake.calls.map((call) => call.method)).to.deep.equal(['getMe']);
  });

  it('keeps sent and edited messages, with per-chat message ids', async () => {
    const keyboard = new InlineKeyboard().text('Stop', 'stop:1');
    const sent = await api().sendMessage(chatId, 'working…', { reply_markup: keyboard });
    const second = await api().sendMessage(chatId, 'second');
    const elsewhere = await api().sendMessage(-1001234, 'in a group');
    expect(second.message_id).to.equal(sent.message_id + 1);
    expect(elsewhere.message_id).to.equal(1);
    expect(elsewhere.chat.type).to.equal('supergroup');
    expect(sent).to.include({ text: 'working…' });
    expect(sent.from).to.include({ id: fake.botId, is_bot: true });
    expect(sent.reply_markup).to.deep.equal({
      inline_keyboard: [[{ text: 'Stop', callback_data: 'stop:1' }]],
    });

    const edited = await api().editMessageText(chatId, sent.message_id, '<b>done</b>', {
      parse_mode: 'HTML',
    });

    expect(edited).to.include({ message_id: sent.message_id, text: 'done' });
    expect(edited).to.have.property('edit_date');
    // Edited without a reply_markup, the keyboard goes, as in Telegram.
    expect(edited).not.to.have.property('reply_markup');
    expect(fake.messages(chatId)).to.deep.equal([
      {
        messageId: sent.message_id,
        text: '<b>done</b>',
        parseMode: 'HTML',
        edits: 1,
        history: ['working…', '<b>done</b>'],
      },
      { messageId: second.message_id, text: 'second', edits: 0, history: ['second'] },
    ]);
  });

  it('refuses an edit that changes nothing, and one of an unknown message', async () => {
    const sent = await api().sendMessage(chatId, 'same');

    const unchanged = await refusal(api().editMessageText(chatId, sent.message_id, 'same'));
    const unknown = await refusal(api().editMessageText(chatId, 999, 'text'));

    expect(unchanged.error_code).to.equal(400);
    expect(unchanged.description).to.equal(
      'Bad Request: message is not modified: specified new message content and reply markup are exactly ' +
        'the same as a current content and reply markup of the message',
    );
    expect(unknown.description).to.equal('Bad Request: message to edit not found');
    expect(fake.messages(chatId)[0]).to.include({ text: 'same', edits: 0 });
  });

  it('accepts valid HTML and returns its parsed text and entities', async () => {
    const html = '<b>x</b> &lt; <pre><code class="language-ts">a &amp;&amp; b</code></pre>';

    const sent = await api().sendMessage(chatId, html, { parse_mode: 'HTML' });

    expect(sent.text).to.equal('x < a && b');
    expect(sent.entities).to.deep.equal([
      { type: 'bold', offset: 0, length: 1 },
      { type: 'pre', offset: 4, length: 6, language: 'ts' },
    ]);
    expect(fake.messages(chatId)[0]).to.include({ text: html, parseMode: 'HTML' });
  });

  it('refuses malformed HTML as Telegram does', async () => {
    const malformed: Array<[string, string]> = [
      ['<b>bold', `Can't find end tag corresponding to start tag "b"`],
      ['<b>x</i>', 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'],
      ['<h1>x</h1>', 'Unsupported start tag "h1" at byte offset 0'],
      ['1 < 2', 'Unsupported start tag "" at byte offset 2'],
      ['fish & chips', 'character "&" at byte offset 5 must be escaped as "&amp;"'],
      ['&nbsp;x', 'Unsupported HTML entity "&nbsp;" at byte offset 0'],
      ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
      ['x</b>', 'Unexpected end tag at byte offset 1'],
      ['<a href="https://x>y', 'Unclosed start tag at byte offset 0'],
    ];
    for (const [text, problem] of malformed) {
      const error = await refusal(api().sendMessage(chatId, text, { parse_mode: 'HTML' }));
      expect(error.description, text).to.equal(`Bad Request: can't parse entities: ${problem}`);
    }
    expect(fake.messages(chatId)).to.deep.equal([]);
  });

  it('refuses empty and too long texts, counting the length after parsing', async () => {
    const long = 'a'.repeat(4096);

    await api().sendMessage(chatId, long);
    await api().sendMessage(chatId, `<b>${long}</b>`, { parse_mode: 'HTML' });
    const tooLong = await refusal(api().sendMessage(chatId, `${long}b`));
    const empty = await refusal(api().sendMessage(chatId, ''));
    const emptyHtml = await refusal(api().sendMessage(chatId, '<b></b>', { parse_mode: 'HTML' }));

    expect(tooLong.description).to.equal('Bad Request: message is too long');
    expect(empty.description).to.equal('Bad Request: message text is empty');
    expect(emptyHtml.description).to.equal('Bad Request: message text is empty');
    expect(fake.messages(chatId)).to.have.length(2);
  });

  it('answers a wrong token with 401 and an unknown method with 404', async () => {
    const error = await refusal(api('999:wrong').getMe());
    const answer = await fetch(`${fake.apiRoot}/bot${fake.token}/noSuchMethod`, { method: 'POST' });

    expect(error).to.include({ error_code: 401, description: 'Unauthorized' });
    expect(answer.status).to.equal(404);
    expect(await answer.json()).to.deep.equal({
      ok: false,
      error_code: 404,
      description: 'Not Found: method not found',
    });
    expect(fake.calls.map((call) => call.method)).to.deep.equal(['noSuchMethod']);
  });

  it('answers a planned fault once, as a GrammyError with its parameters', async () => {
    fake.failNext('sendMessage', rateLimited(1));

    const error = await refusal(api().sendMessage(chatId, 'hello'));
    await api().sendMessage(chatId, 'hello');

    expect(error.error_code).to.equal(429);
    expect(error.parameters.retry_after).to.equal(1);
    expect(fake.callsOf('sendMessage')).to.have.length(2);
    expect(fake.messages(chatId).map((message) => message.text)).to.deep.equal(['hello']);
  });

  it('holds a long poll until an update is pushed, and ends an empty one on its timeout', async () => {
    const empty = await api().getUpdates({ timeout: 0.05 });
    const started = Date.now();
    const poll = api().getUpdates({ timeout: 10 });
    await fake.waitFor(() => fake.callsOf('getUpdates').length === 2, 'the second poll');
    const updateId = fake.pushMessage({ chatId, userId: chatId, text: 'hi' });

    const updates = await poll;

    expect(empty).to.deep.equal([]);
    expect(Date.now() - started).to.be.below(2000);
    expect(updates.map((update) => update.update_id)).to.deep.equal([updateId]);
    expect(updateId).to.equal(1000);
    // Not confirmed yet: the next poll's offset does that.
    expect(fake.pendingUpdateIds()).to.deep.equal([updateId]);
    await api().getUpdates({ offset: updateId + 1 });
    expect(fake.pendingUpdateIds()).to.deep.equal([]);
  });

  it('ends the older of two concurrent long polls with a conflict', async () => {
    const older = refusal(api().getUpdates({ timeout: 10 }));
    await fake.waitFor(() => fake.callsOf('getUpdates').length === 1, 'the first poll');

    const newer = await api().getUpdates({ timeout: 0 });

    expect(newer).to.deep.equal([]);
    const conflict = await older;
    expect(conflict.error_code).to.equal(409);
    expect(conflict.description).to.match(/^Conflict: terminated by other getUpdates request/);
  });

  it('feeds a polling bot pushed messages and callback queries', async () => {
    const { bot, running } = startBot((bot) => {
      bot.command('start', (ctx) =>
        ctx.reply('welcome', { reply_markup: new InlineKeyboard().text('Go', 'go:1') }),
      );
      bot.on('message:text', (ctx) =>
        ctx.reply(`echo: ${ctx.message.text} from ${ctx.from.username}`, {
          reply_parameters: { message_id: ctx.message.message_id },
        }),
      );
      bot.on('callback_query:data', async (ctx) => {
        await ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` });
        await ctx.editMessageText(`chose ${ctx.callbackQuery.data}`);
      });
    });

    fake.pushMessage({ chatId, userId: chatId, text: '/start', username: 'ada', firstName: 'Ada' });
    const welcome = await fake.waitFor(
      () => fake.messages(chatId).find((m) => m.text === 'welcome'),
      'welcome',
    );
    fake.pushMessage({ chatId, userId: chatId, text: 'hello' });
    await fake.waitFor(
      () => fake.messages(chatId).find((m) => m.text === 'echo: hello from ada'),
      'the echo',
    );
    fake.pushCallback({ chatId, userId: chatId, messageId: welcome.messageId, data: 'go:1' });
    await fake.waitFor(() => fake.messages(chatId)[0]?.text === 'chose go:1', 'the edit');
    await bot.stop();
    await running;

    expect(fake.callbackAnswers).to.deep.equal([
      { callbackQueryId: fake.callsOf('answerCallbackQuery')[0]?.params.callback_query_id, text: 'got go:1' },
    ]);
    expect(fake.calls.map((call) => call.method)).to.have.members([
      'getMe',
      'deleteWebhook',
      'sendMessage',
      'sendMessage',
      'answerCallbackQuery',
      'editMessageText',
    ]);
    expect(fake.callsOf('getUpdates')).to.have.length.above(0);
    // bot.stop() confirmed everything it handled.
    expect(fake.pendingUpdateIds()).to.deep.equal([]);
  });

  it('redelivers a confirmed update to a restarted bot', async () => {
    const seen: number[] = [];
    const handle = (bot: Bot) => bot.on('message:text', (ctx) => void seen.push(ctx.update.update_id));
    const first = startBot(handle);
    const updateId = fake.pushMessage({ chatId, userId: chatId, text: 'run it' });
    await fake.waitFor(() => seen.length === 1, 'the first delivery');
    await first.bot.stop();
    await first.running;
    expect(fake.pendingUpdateIds()).to.deep.equal([]);

    fake.redeliver(updateId);
    const second = startBot(handle);
    await fake.waitFor(() => seen.length === 2, 'the redelivery');
    await second.bot.stop();
    await second.running;

    expect(seen).to.deep.equal([updateId, updateId]);
  });

  it('refuses a second answer to a callback query', async () => {
    const sent = await api().sendMessage(chatId, 'pick', {
      reply_markup: new InlineKeyboard().text('A', 'a'),
    });
    fake.pushCallback({ chatId, userId: chatId, messageId: sent.message_id, data: 'a' });
    const [update] = await api().getUpdates();
    const queryId = update?.callback_query?.id ?? '';

    expect(update?.callback_query?.message).to.include({ message_id: sent.message_id, text: 'pick' });
    expect(await api().answerCallbackQuery(queryId)).to.equal(true);
    const again = await refusal(api().answerCallbackQuery(queryId));
    expect(again.description).to.equal(
      'Bad Request: query is too old and response timeout expired or query ID is invalid',
    );
  });
});
