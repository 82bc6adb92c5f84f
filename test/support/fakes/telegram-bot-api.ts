/**
 * A fake of the Telegram Bot API for tests of bots built with the real grammy SDK. It speaks the real
 * HTTP protocol on loopback (`POST /bot<token>/<method>` with a JSON body, answered with
 * `{ok: true, result}` or `{ok: false, error_code, description, parameters?}`), keeps the state a bot
 * can observe (its messages, pending updates, open callback queries) and refuses bad calls with the real
 * API's wording, so the SDK's own error handling runs as it would against Telegram.
 *
 * Where it differs from the real API, it is stricter or faster, never more lenient:
 * - in HTML text every `&` must start an entity (&lt; &gt; &amp; &quot; &#NN; &#xHH;); Telegram passes a
 *   stray `&` through, but a converter that forgets to escape one is wrong all the same;
 * - getUpdates takes fractional timeouts, so a test can see an empty poll end without waiting a second;
 * - parameters come as JSON or a query string only: file uploads are out of scope.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTelegramOptions {
  /** `<bot id>:<secret>`; defaults to `123456:TEST-token`. */
  token?: string;
}

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** Date.now() when the call arrived. */
  at: number;
}

/** A bot message as it stands now. */
export interface BotMessage {
  messageId: number;
  /** The text as the bot last sent it, markup included (not the parsed text Telegram shows). */
  text: string;
  parseMode?: string;
  /** The reply_markup of the last send or edit; an edit of the text without one removes it, as in Telegram. */
  replyMarkup?: unknown;
  edits: number;
  /** Every text the message has had, oldest first, the current one last. */
  history: string[];
}

/** Telegram's answer to too many requests: wait `seconds`, then call again. */
export function rateLimited(seconds: number): FaultAnswer {
  return {
    status: 429,
    body: {
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${seconds}`,
      parameters: { retry_after: seconds },
    },
  };
}

export interface FaultAnswer {
  status: number;
  body: object;
}

export interface PushMessageOptions {
  chatId: number;
  userId: number;
  text: string;
  /** Left out of `from` unless given, as for a user without a username. */
  username?: string;
  firstName?: string;
  /** Defaults to 'private' for a positive chat id, else 'supergroup'. */
  chatType?: 'private' | 'group' | 'supergroup';
  messageThreadId?: number;
}

export interface PushCallbackOptions {
  chatId: number;
  userId: number;
  /** A message of that chat the fake knows: the query carries it as it stands now. */
  messageId: number;
  data: string;
}

export interface CallbackAnswer {
  callbackQueryId: string;
  text?: string;
  showAlert?: boolean;
  url?: string;
}

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export interface ParsedText {
  /** The text Telegram shows, markup removed: what its length limit counts, in UTF-16 code units. */
  text: string;
  entities: MessageEntity[];
}

type Predicate<T> = () => T | undefined | false | null;

export interface FakeTelegram {
  /** What grammy's `client.apiRoot` takes, e.g. `http://127.0.0.1:PORT`. */
  readonly apiRoot: string;
  readonly token: string;
  /** The part of the token before ':', also the bot user's id. */
  readonly botId: number;
  /** Every call in order, getUpdates left out (see callsOf). */
  readonly calls: RecordedCall[];
  /** Every answerCallbackQuery the fake accepted, in order. */
  readonly callbackAnswers: CallbackAnswer[];
  /** Calls of one method (any case), or of every method; getUpdates only by name or with includePolls. */
  callsOf(method?: string, options?: { includePolls?: boolean }): RecordedCall[];
  /** The bot's messages in a chat, in order, deleted ones left out. */
  messages(chatId: number): BotMessage[];
  /** Ids of the updates a getUpdates would still hand out: pushed and not yet confirmed. */
  pendingUpdateIds(): number[];
  /** Queues an update (update_id assigned from 1000 up) and wakes a waiting long poll. */
  pushUpdate(update: object): number;
  pushMessage(options: PushMessageOptions): number;
  pushCallback(options: PushCallbackOptions): number;
  /**
   * Makes a confirmed update pending again, as when a bot's confirmation never reached Telegram. Like
   * any update, a getUpdates whose offset is past it confirms it away: a restarted grammy Bot, which polls
   * from offset 1 again, receives it.
   */
  redeliver(updateId: number): void;
  /** The next `times` calls of `method` get this answer instead of their own. */
  failNext(method: string, answer: FaultAnswer, times?: number): void;
  /** Polls `predicate` every 20 ms until it gives a value (not undefined, false or null). */
  waitFor<T>(predicate: Predicate<T>, timeoutMs?: number): Promise<T>;
  waitFor<T>(predicate: Predicate<T>, what: string, timeoutMs?: number): Promise<T>;
  /** Ends a pending long poll with no updates and closes every connection. */
  close(): Promise<void>;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const fake = new FakeTelegramServer(options.token ?? '123456:TEST-token');
  await fake.listen();
  return fake;
}

/** A refusal, thrown by a method and written as `{ok: false, error_code, description, parameters?}`. */
export class TelegramApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }

  get body(): object {
    const { status, description, parameters } = this;
    return { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) };
  }
}

const badRequest = (what: string): TelegramApiError => new TelegramApiError(400, `Bad Request: ${what}`);

const MAX_TEXT_LENGTH = 4096;
const FIRST_UPDATE_ID = 1000;
const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a ' +
  'current content and reply markup of the message';
const CONFLICT =
  'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running';
// Update types Telegram sends only to a bot that names them in allowed_updates.
const OPT_IN_UPDATES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);
const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);
const BOT_COMMAND = /^\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]+)?/;
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;

type Params = Record<string, unknown>;

interface User {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

interface Message {
  message_id: number;
  from: User;
  chat: Record<string, unknown>;
  date: number;
  text?: string;
  entities?: MessageEntity[];
  reply_markup?: unknown;
  edit_date?: number;
  [field: string]: unknown;
}

interface Update {
  update_id: number;
  [type: string]: unknown;
}

interface StoredMessage {
  /** As the API hands it out: parsed text, entities, the inline keyboard shown. */
  message: Message;
  fromBot: boolean;
  text: string;
  parseMode?: string;
  replyMarkup?: unknown;
  edits: number;
  history: string[];
}

interface ChatState {
  chat: Record<string, unknown>;
  lastMessageId: number;
  messages: Map<number, StoredMessage>;
}

interface PendingPoll {
  offset: number;
  limit: number;
  resolve(updates: Update[]): void;
  reject(error: TelegramApiError): void;
  timer: NodeJS.Timeout;
}

interface MethodHandler {
  name: string;
  run(params: Params, response: ServerResponse): unknown;
}

class FakeTelegramServer implements FakeTelegram {
  apiRoot = '';
  readonly botId: number;
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private readonly log: RecordedCall[] = [];
  private readonly answers: CallbackAnswer[] = [];
  private readonly faults = new Map<string, FaultAnswer[]>();
  private readonly chats = new Map<number, ChatState>();
  private readonly users = new Map<number, User>();
  private readonly pushed = new Map<number, Update>();
  private readonly openQueries = new Set<string>();
  private pending: Update[] = [];
  private poll: PendingPoll | undefined;
  private allowedUpdates: Set<string> | undefined;
  private nextUpdateId = FIRST_UPDATE_ID;
  private lastCallbackNumber = 0;
  private closing: Promise<void> | undefined;

  private readonly methods = new Map<string, MethodHandler>(
    Object.entries({
      getMe: () => ({
        ...this.botUser(),
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      }),
      deleteWebhook: () => true,
      setMyCommands: (params: Params) => setMyCommands(params),
      sendChatAction: (params: Params) => sendChatAction(params),
      getUpdates: (params: Params, response: ServerResponse) => this.getUpdates(params, response),
      sendMessage: (params: Params) => this.sendMessage(params),
      editMessageText: (params: Params) => this.editMessageText(params),
      editMessageReplyMarkup: (params: Params) => this.editMessageReplyMarkup(params),
      answerCallbackQuery: (params: Params) => this.answerCallbackQuery(params),
      deleteMessage: (params: Params) => this.deleteMessage(params),
    }).map(([name, run]): [string, MethodHandler] => [name.toLowerCase(), { name, run }]),
  );

  constructor(readonly token: string) {
    this.botId = Number(token.split(':')[0]);
    if (!Number.isSafeInteger(this.botId) || this.botId <= 0) throw new Error(`not a bot token: ${token}`);
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server.once('listening', resolve));
    this.apiRoot = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  // ---- test controls and inspection

  get calls(): RecordedCall[] {
    return this.callsOf();
  }

  get callbackAnswers(): CallbackAnswer[] {
    return [...this.answers];
  }

  callsOf(method?: string, options: { includePolls?: boolean } = {}): RecordedCall[] {
    const wanted = method?.toLowerCase();
    if (wanted !== undefined) return this.log.filter((call) => call.method.toLowerCase() === wanted);
    return this.log.filter((call) => options.includePolls || call.method !== 'getUpdates');
  }

  messages(chatId: number): BotMessage[] {
    const stored = [...(this.chats.get(chatId)?.messages.values() ?? [])];
    return stored
      .filter((entry) => entry.fromBot)
      .map(({ message, text, parseMode, replyMarkup, edits, history }) =>
        compact({
          messageId: message.message_id,
          text,
          parseMode,
          replyMarkup,
          edits,
          history: [...history],
        }),
      );
  }

  pendingUpdateIds(): number[] {
    return this.pending.map((update) => update.update_id);
  }

  pushUpdate(update: object): number {
    const stored: Update = { ...update, update_id: this.nextUpdateId++ };
    this.pushed.set(stored.update_id, stored);
    // Telegram does not even create an update the bot did not allow, so none waits for a later poll.
    if (this.allows(stored)) {
      this.pending.push(stored);
      this.wakePoll();
    }
    return stored.update_id;
  }

  pushMessage(options: PushMessageOptions): number {
    const from = this.rememberUser(options.userId, options.firstName, options.username);
    const state = this.chatState(options.chatId);
    state.chat = chatOf(options, from);
    const command = BOT_COMMAND.exec(options.text)?.[0];
    const message = this.newMessage(state, from, {
      message_thread_id: options.messageThreadId,
      text: options.text,
      entities: command ? [{ type: 'bot_command', offset: 0, length: command.length }] : undefined,
    });
    state.messages.set(message.message_id, {
      message,
      fromBot: false,
      text: options.text,
      edits: 0,
      history: [options.text],
    });
    return this.pushUpdate({ message });
  }

  pushCallback(options: PushCallbackOptions): number {
    const stored = this.chats.get(options.chatId)?.messages.get(options.messageId);
    if (!stored) throw new Error(`pushCallback: chat ${options.chatId} has no message ${options.messageId}`);
    this.lastCallbackNumber += 1;
    const id = String(4_000_000_000_000_000 + this.lastCallbackNumber);
    this.openQueries.add(id);
    return this.pushUpdate({
      callback_query: {
        id,
        from: this.rememberUser(options.userId),
        // A snapshot: later edits must not change an update already queued.
        message: structuredClone(stored.message),
        chat_instance: String(7_000_000_000_000_000 + options.chatId),
        data: options.data,
      },
    });
  }

  redeliver(updateId: number): void {
    const update = this.pushed.get(updateId);
    if (!update) throw new Error(`redeliver: no update ${updateId} was pushed`);
    if (this.pending.includes(update)) return;
    this.pending = [...this.pending, update].sort((a, b) => a.update_id - b.update_id);
    this.wakePoll();
  }

  failNext(method: string, answer: FaultAnswer, times = 1): void {
    const queue = this.faults.get(method.toLowerCase()) ?? [];
    queue.push(...Array.from({ length: times }, () => answer));
    this.faults.set(method.toLowerCase(), queue);
  }

  waitFor<T>(predicate: Predicate<T>, timeoutMs?: number): Promise<T>;
  waitFor<T>(predicate: Predicate<T>, what: string, timeoutMs?: number): Promise<T>;
  async waitFor<T>(predicate: Predicate<T>, whatOrTimeout?: string | number, timeoutMs?: number): Promise<T> {
    const what = typeof whatOrTimeout === 'string' ? ` for ${whatOrTimeout}` : '';
    const deadline = Date.now() + ((typeof whatOrTimeout === 'number' ? whatOrTimeout : timeoutMs) ?? 10_000);
    for (;;) {
      const value = predicate();
      if (value !== undefined && value !== false && value !== null) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  // ---- HTTP

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? '/', this.apiRoot);
      const [, token, method] = /^\/bot([^/]+)\/([^/]+)$/.exec(url.pathname) ?? [];
      if (token === undefined || method === undefined) throw new TelegramApiError(404, 'Not Found');
      if (token !== this.token) throw new TelegramApiError(401, 'Unauthorized');
      const params = await readParams(request, url);
      // Method names are case-insensitive in the Bot API.
      const handler = this.methods.get(method.toLowerCase());
      this.log.push({ method: handler?.name ?? method, params, at: Date.now() });
      const fault = this.faults.get(method.toLowerCase())?.shift();
      if (fault) return send(response, fault.status, fault.body);
      if (!handler) throw new TelegramApiError(404, 'Not Found: method not found');
      send(response, 200, { ok: true, result: await handler.run(params, response) });
    } catch (error) {
      const refusal =
        error instanceof TelegramApiError
          ? error
          : new TelegramApiError(500, `Internal Server Error: ${error}`);
      send(response, refusal.status, refusal.body);
    }
  }

  private async shutDown(): Promise<void> {
    this.endPoll([]);
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  // ---- getUpdates

  private getUpdates(params: Params, response: ServerResponse): Update[] | Promise<Update[]> {
    const offset = integer(params.offset) ?? 0;
    const limit = Math.min(Math.max(integer(params.limit) ?? 100, 1), 100);
    const timeout = Math.max(finiteNumber(params.timeout) ?? 0, 0);
    this.setAllowedUpdates(params.allowed_updates);
    this.confirm(offset);
    // Of two concurrent polls Telegram keeps the newer one and ends the older with a conflict.
    this.endPoll(new TelegramApiError(409, CONFLICT));
    const ready = this.deliverable(offset, limit);
    if (ready.length > 0 || timeout === 0) return ready;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.endPoll([]), timeout * 1000);
      const poll: PendingPoll = { offset, limit, resolve, reject, timer };
      this.poll = poll;
      // A client that gave up (grammy aborts its poll on stop) no longer holds the poll.
      response.once('close', () => {
        if (this.poll === poll) this.endPoll([]);
      });
    });
  }

  private setAllowedUpdates(value: unknown): void {
    const types = structured(value, "can't parse allowed_updates JSON array");
    // Left out, the previous setting stays; an empty list means the default set.
    if (!Array.isArray(types)) return;
    this.allowedUpdates = types.length > 0 ? new Set(types.map(String)) : undefined;
  }

  private allows(update: Update): boolean {
    const type = Object.keys(update).find((key) => key !== 'update_id') ?? '';
    return this.allowedUpdates ? this.allowedUpdates.has(type) : !OPT_IN_UPDATES.has(type);
  }

  /** An offset confirms, and so forgets, every earlier update; a negative one keeps only the last few. */
  private confirm(offset: number): void {
    if (offset > 0) this.pending = this.pending.filter((update) => update.update_id >= offset);
    else if (offset < 0) this.pending = this.pending.slice(offset);
  }

  private deliverable(offset: number, limit: number): Update[] {
    return this.pending.filter((update) => update.update_id >= offset).slice(0, limit);
  }

  private wakePoll(): void {
    if (!this.poll) return;
    const ready = this.deliverable(this.poll.offset, this.poll.limit);
    if (ready.length > 0) this.endPoll(ready);
  }

  private endPoll(outcome: Update[] | TelegramApiError): void {
    const poll = this.poll;
    if (!poll) return;
    this.poll = undefined;
    clearTimeout(poll.timer);
    if (outcome instanceof TelegramApiError) poll.reject(outcome);
    else poll.resolve(outcome);
  }

  // ---- messages

  private sendMessage(params: Params): Message {
    const state = this.chatState(chatIdOf(params));
    const text = messageText(params);
    const replyMarkup = replyMarkupOf(params);
    const replyTo = replyTarget(state, params);
    const message = this.newMessage(state, this.botUser(), {
      message_thread_id: integer(params.message_thread_id),
      // Telegram nests one level of reply only.
      reply_to_message: replyTo && compact({ ...replyTo.message, reply_to_message: undefined }),
      text: text.text,
      entities: nonEmpty(text.entities),
      link_preview_options: params.link_preview_options,
      reply_markup: shownKeyboard(replyMarkup),
    });
    state.messages.set(message.message_id, {
      message,
      fromBot: true,
      text: text.raw,
      parseMode: text.parseMode,
      replyMarkup,
      edits: 0,
      history: [text.raw],
    });
    return message;
  }

  private editMessageText(params: Params): Message {
    const stored = this.editable(params);
    const text = messageText(params);
    const replyMarkup = replyMarkupOf(params);
    const edited = edit(stored, {
      text: text.text,
      entities: nonEmpty(text.entities),
      reply_markup: shownKeyboard(replyMarkup),
    });
    Object.assign(stored, { text: text.raw, parseMode: text.parseMode, replyMarkup });
    stored.history.push(text.raw);
    return edited;
  }

  private editMessageReplyMarkup(params: Params): Message {
    const stored = this.editable(params);
    const replyMarkup = replyMarkupOf(params);
    const edited = edit(stored, { reply_markup: shownKeyboard(replyMarkup) });
    stored.replyMarkup = replyMarkup;
    return edited;
  }

  private deleteMessage(params: Params): true {
    const messages = this.chats.get(chatIdOf(params))?.messages;
    const id = integer(params.message_id);
    if (!messages || id === undefined || !messages.delete(id))
      throw badRequest('message to delete not found');
    return true;
  }

  private answerCallbackQuery(params: Params): true {
    const id = String(params.callback_query_id ?? '');
    // A query can be answered once; Telegram gives the same answer for an unknown one.
    if (!this.openQueries.delete(id)) {
      throw badRequest('query is too old and response timeout expired or query ID is invalid');
    }
    this.answers.push(
      compact({
        callbackQueryId: id,
        text: optionalString(params.text),
        showAlert: typeof params.show_alert === 'boolean' ? params.show_alert : undefined,
        url: optionalString(params.url),
      }),
    );
    return true;
  }

  private editable(params: Params): StoredMessage {
    const state = this.chats.get(chatIdOf(params));
    const id = integer(params.message_id);
    if (id === undefined) throw badRequest('message identifier is not specified');
    const stored = state?.messages.get(id);
    if (!stored) throw badRequest('message to edit not found');
    if (!stored.fromBot) throw badRequest("message can't be edited");
    return stored;
  }

  private newMessage(state: ChatState, from: User, content: Record<string, unknown>): Message {
    state.lastMessageId += 1;
    const date = Math.floor(Date.now() / 1000);
    return compact({ message_id: state.lastMessageId, from, chat: state.chat, date, ...content });
  }

  private chatState(chatId: number): ChatState {
    let state = this.chats.get(chatId);
    if (!state) {
      const chat = chatId > 0 ? { id: chatId, type: 'private' } : { id: chatId, type: 'supergroup' };
      state = { chat, lastMessageId: 0, messages: new Map() };
      this.chats.set(chatId, state);
    }
    return state;
  }

  private rememberUser(id: number, firstName?: string, username?: string): User {
    const known = this.users.get(id);
    const user = compact({
      id,
      is_bot: false,
      first_name: firstName ?? known?.first_name ?? 'Test User',
      username: username ?? known?.username,
    });
    this.users.set(id, user);
    return user;
  }

  private botUser(): User {
    return { id: this.botId, is_bot: true, first_name: 'Cairn', username: 'cairn_test_bot' };
  }
}

// ---- methods without state of their own

function setMyCommands(params: Params): true {
  const commands = structured(params.commands, "can't parse commands JSON array");
  if (!Array.isArray(commands)) throw badRequest('parameter "commands" is required');
  for (const entry of commands) {
    const command = isObject(entry) ? entry.command : undefined;
    if (typeof command !== 'string' || !COMMAND_NAME.test(command)) throw badRequest('BOT_COMMAND_INVALID');
  }
  return true;
}

function sendChatAction(params: Params): true {
  chatIdOf(params);
  if (!CHAT_ACTIONS.has(String(params.action))) throw badRequest('wrong parameter action in request');
  return true;
}

/** Applies an edit to a bot message, refusing one that changes nothing the user sees. */
function edit(stored: StoredMessage, changes: Partial<Message>): Message {
  const next = compact({ ...stored.message, ...changes });
  const shown = (message: Message) => canonical([message.text, message.entities, message.reply_markup]);
  if (shown(next) === shown(stored.message)) throw badRequest(NOT_MODIFIED);
  stored.message = { ...next, edit_date: Math.floor(Date.now() / 1000) };
  stored.edits += 1;
  return stored.message;
}

function replyTarget(state: ChatState, params: Params): StoredMessage | undefined {
  const reply = structured(params.reply_parameters, "can't parse reply parameters JSON object");
  const options = isObject(reply) ? reply : params;
  const id = integer(isObject(reply) ? reply.message_id : params.reply_to_message_id);
  if (id === undefined) return undefined;
  const target = state.messages.get(id);
  if (!target && options.allow_sending_without_reply !== true) {
    throw badRequest('message to be replied not found');
  }
  return target;
}

function chatOf(options: PushMessageOptions, from: User): Record<string, unknown> {
  const type = options.chatType ?? (options.chatId > 0 ? 'private' : 'supergroup');
  if (type !== 'private') return { id: options.chatId, title: 'Cairn test chat', type };
  return compact({ id: options.chatId, first_name: from.first_name, username: from.username, type });
}

// ---- text

interface MessageText extends ParsedText {
  raw: string;
  parseMode?: string;
}

/** The text of a sendMessage or editMessageText, refused as Telegram refuses it. */
function messageText(params: Params): MessageText {
  const raw = params.text === undefined || params.text === null ? '' : String(params.text);
  if (raw === '') throw badRequest('message text is empty');
  const parseMode = optionalString(params.parse_mode);
  const parsed = parseText(raw, parseMode, params.entities);
  if (parsed.text.trim() === '') throw badRequest('message text is empty');
  if (parsed.text.length > MAX_TEXT_LENGTH) throw badRequest('message is too long');
  return { raw, parseMode, ...parsed };
}

function parseText(raw: string, parseMode: string | undefined, entities: unknown): ParsedText {
  switch (parseMode?.toLowerCase()) {
    case undefined:
      return { text: raw, entities: Array.isArray(entities) ? (entities as MessageEntity[]) : [] };
    case 'html':
      return parseTelegramHtml(raw);
    case 'markdown':
    case 'markdownv2':
      return { text: raw, entities: [] }; // not modelled: the text counts as sent
    default:
      throw badRequest('unsupported parse_mode');
  }
}

const TAG_ENTITY_TYPES = new Map([
  ['b', 'bold'],
  ['strong', 'bold'],
  ['i', 'italic'],
  ['em', 'italic'],
  ['u', 'underline'],
  ['ins', 'underline'],
  ['s', 'strikethrough'],
  ['strike', 'strikethrough'],
  ['del', 'strikethrough'],
  ['span', 'spoiler'],
  ['tg-spoiler', 'spoiler'],
  ['a', 'text_link'],
  ['code', 'code'],
  ['pre', 'pre'],
  ['blockquote', 'blockquote'],
  ['tg-emoji', 'custom_emoji'],
]);
const NAMED_REFERENCES = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
]);
// Sticky patterns: each matches exactly at the parser's position.
const PLAIN_RUN = /[^<&]+/y;
const REFERENCE = /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/y;
const TAG_NAME = /[^\s>]*/y;
const ATTRIBUTE_NAME = /[^\s=>]*/y;
const NAME_TOKEN = /[A-Za-z0-9.-]*/y;
const SPACES = /\s*/y;
const QUOTED_RUN = { '"': /[^"&]+/y, "'": /[^'&]+/y };

interface OpenTag {
  name: string;
  offset: number;
  attributes: Map<string, string>;
  language?: string;
}

/**
 * Parses text in Telegram's HTML parse mode into the text users see and its entities, refusing what
 * Telegram refuses with its wording (`Bad Request: can't parse entities: ...`, byte offsets in UTF-8).
 */
export function parseTelegramHtml(html: string): ParsedText {
  return new HtmlParser(html).parse();
}

class HtmlParser {
  private pos = 0;
  private text = '';
  private readonly open: OpenTag[] = [];
  private readonly entities: MessageEntity[] = [];

  constructor(private readonly html: string) {}

  parse(): ParsedText {
    while (this.pos < this.html.length) {
      if (this.char === '<') this.tag();
      else if (this.char === '&') this.text += this.reference();
      else this.text += this.match(PLAIN_RUN)?.[0] ?? '';
    }
    const unclosed = this.open.at(-1);
    if (unclosed) throw this.error(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
    const entities = this.entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
    return { text: this.text, entities };
  }

  private get char(): string {
    return this.html.charAt(this.pos);
  }

  private match(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.html) ?? undefined;
    if (found) this.pos = pattern.lastIndex;
    return found;
  }

  private reference(): string {
    const at = this.pos;
    const found = this.match(REFERENCE);
    if (!found) throw this.error(`character "&" at byte offset ${this.bytes(at)} must be escaped as "&amp;"`);
    const [whole, decimal, hex, name] = found;
    const char =
      name !== undefined
        ? NAMED_REFERENCES.get(name)
        : codePoint(Number.parseInt(decimal ?? hex ?? '', decimal ? 10 : 16));
    if (char === undefined)
      throw this.error(`Unsupported HTML entity "${whole}" at byte offset ${this.bytes(at)}`);
    return char;
  }

  private tag(): void {
    if (this.html.startsWith('</', this.pos)) this.endTag();
    else this.startTag();
  }

  private startTag(): void {
    const at = this.pos;
    this.pos += 1;
    const name = (this.match(TAG_NAME)?.[0] ?? '').toLowerCase();
    if (this.char === '') throw this.error(`Unclosed start tag at byte offset ${this.bytes(at)}`);
    if (!TAG_ENTITY_TYPES.has(name)) {
      throw this.error(`Unsupported start tag "${name}" at byte offset ${this.bytes(at)}`);
    }
    const attributes = this.attributes(name, at);
    if (name === 'span' && attributes.get('class') !== 'tg-spoiler') {
      throw this.error(`Tag "span" must have class "tg-spoiler" at byte offset ${this.bytes(at)}`);
    }
    if (name === 'tg-emoji' && !/^\d+$/.test(attributes.get('emoji-id') ?? '')) {
      throw this.error(`Tag "tg-emoji" must have a numeric "emoji-id" at byte offset ${this.bytes(at)}`);
    }
    this.open.push({ name, offset: this.text.length, attributes });
  }

  private attributes(tag: string, at: number): Map<string, string> {
    const attributes = new Map<string, string>();
    for (;;) {
      this.match(SPACES);
      if (this.char === '') throw this.error(`Unclosed start tag at byte offset ${this.bytes(at)}`);
      if (this.char === '>') break;
      const name = (this.match(ATTRIBUTE_NAME)?.[0] ?? '').toLowerCase();
      if (name === '') {
        throw this.error(`Empty attribute name in the tag "${tag}" at byte offset ${this.bytes(at)}`);
      }
      this.match(SPACES);
      attributes.set(name, this.char === '=' ? this.attributeValue(at) : '');
    }
    this.pos += 1;
    return attributes;
  }

  private attributeValue(at: number): string {
    this.pos += 1;
    this.match(SPACES);
    const quote = this.char;
    if (quote !== '"' && quote !== "'") {
      const token = this.match(NAME_TOKEN)?.[0] ?? '';
      if (this.char === '') throw this.error(`Unclosed start tag at byte offset ${this.bytes(at)}`);
      if (!/[\s>]/.test(this.char)) {
        throw this.error(`Unexpected end of name token at byte offset ${this.bytes(this.pos)}`);
      }
      return token.toLowerCase();
    }
    this.pos += 1;
    let value = '';
    while (this.char !== quote && this.char !== '') {
      value += this.char === '&' ? this.reference() : (this.match(QUOTED_RUN[quote])?.[0] ?? '');
    }
    if (this.char === '') throw this.error(`Unclosed start tag at byte offset ${this.bytes(at)}`);
    this.pos += 1;
    return value;
  }

  private endTag(): void {
    const at = this.pos;
    this.pos += 2;
    const name = (this.match(TAG_NAME)?.[0] ?? '').toLowerCase();
    this.match(SPACES);
    if (this.char !== '>') throw this.error(`Unclosed end tag at byte offset ${this.bytes(at)}`);
    this.pos += 1;
    const tag = this.open.pop();
    if (!tag) throw this.error(`Unexpected end tag at byte offset ${this.bytes(at)}`);
    if (name !== '' && name !== tag.name) {
      throw this.error(
        `Unmatched end tag at byte offset ${this.bytes(at)}, expected "</${tag.name}>", found "</${name}>"`,
      );
    }
    this.closeEntity(tag);
  }

  private closeEntity(tag: OpenTag): void {
    const parent = this.open.at(-1);
    // Telegram folds <pre><code class="language-x"> into one pre entity that carries the language.
    if (tag.name === 'code' && parent?.name === 'pre') {
      parent.language ??= /^language-(.+)$/.exec(tag.attributes.get('class') ?? '')?.[1];
      return;
    }
    const length = this.text.length - tag.offset;
    if (length > 0) this.entities.push(entityOf(tag, length, this.text));
  }

  private bytes(pos: number): number {
    return Buffer.byteLength(this.html.slice(0, pos));
  }

  private error(what: string): TelegramApiError {
    return badRequest(`can't parse entities: ${what}`);
  }
}

function entityOf(tag: OpenTag, length: number, text: string): MessageEntity {
  const entity = { type: TAG_ENTITY_TYPES.get(tag.name) ?? tag.name, offset: tag.offset, length };
  switch (tag.name) {
    case 'a': // without an href, Telegram links the text itself
      return { ...entity, url: tag.attributes.get('href') ?? text.slice(tag.offset) };
    case 'pre':
      return compact({ ...entity, language: tag.language });
    case 'blockquote':
      return tag.attributes.has('expandable') ? { ...entity, type: 'expandable_blockquote' } : entity;
    case 'tg-emoji':
      return { ...entity, custom_emoji_id: tag.attributes.get('emoji-id') };
    default:
      return entity;
  }
}

function codePoint(value: number): string | undefined {
  const valid = value > 0 && value <= 0x10ffff && !(value >= 0xd800 && value <= 0xdfff);
  return valid ? String.fromCodePoint(value) : undefined;
}

// ---- keyboards

function replyMarkupOf(params: Params): unknown {
  const markup = structured(params.reply_markup, "can't parse reply keyboard markup JSON object");
  if (markup === undefined) return undefined;
  if (!isObject(markup)) throw badRequest("can't parse reply keyboard markup JSON object");
  if ('inline_keyboard' in markup) checkInlineKeyboard(markup.inline_keyboard);
  return markup;
}

function checkInlineKeyboard(rows: unknown): void {
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row))) {
    throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
  }
  for (const button of rows.flat() as unknown[]) {
    const data = isObject(button) ? button.callback_data : undefined;
    // callback_data is 1-64 bytes: a longer one is a classic bug that only shows against Telegram.
    if (typeof data === 'string' && (data === '' || Buffer.byteLength(data) > 64)) {
      throw badRequest('BUTTON_DATA_INVALID');
    }
  }
}

/** The markup a Message carries: only an inline keyboard with at least one button shows. */
function shownKeyboard(markup: unknown): unknown {
  const rows = isObject(markup) ? markup.inline_keyboard : undefined;
  return Array.isArray(rows) && rows.flat().length > 0 ? { inline_keyboard: rows } : undefined;
}

// ---- parameters and answers

async function readParams(request: IncomingMessage, url: URL): Promise<Params> {
  const query = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const type = request.headers['content-type'] ?? '';
  if (body === '') return query;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { ...query, ...Object.fromEntries(new URLSearchParams(body)) };
  }
  if (!type.startsWith('application/json')) throw badRequest('the fake Bot API takes JSON bodies only');
  const parsed = structured(body, "can't parse JSON object");
  if (!isObject(parsed)) throw badRequest("can't parse JSON object");
  return { ...query, ...parsed };
}

function send(response: ServerResponse, status: number, body: object): void {
  if (response.destroyed || response.writableEnded) return; // the client has gone: an aborted long poll
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function chatIdOf(params: Params): number {
  if (params.chat_id === undefined || params.chat_id === '') throw badRequest('chat_id is empty');
  const id = integer(params.chat_id);
  if (id === undefined || id === 0) throw badRequest('chat not found');
  return id;
}

/** A structured parameter: JSON bodies carry it as is, query strings and forms JSON-serialized. */
function structured(value: unknown, failure: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest(failure);
  }
}

function integer(value: unknown): number | undefined {
  const number = finiteNumber(value);
  return number !== undefined && Number.isInteger(number) ? number : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object without its undefined fields, as the API leaves absent optional fields out. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

/** JSON with sorted keys, so equal values compare equal whatever order their fields came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    isObject(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => a.localeCompare(b)))
      : field,
  );
}
