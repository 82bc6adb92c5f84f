/**
 * A fake of Discord for tests of bots built with the real discord.js SDK. It speaks both real protocols
 * on loopback: the REST API v10 (`/api/v10/...`, JSON bodies, Discord's error bodies and rate-limit
 * headers) and the Gateway (WebSocket, JSON encoding: HELLO, IDENTIFY, READY, heartbeats, RESUME with
 * replay). A discord.js Client reaches it with one option, `rest: { api: fake.restUrl }`: the gateway
 * address comes from the fake's own answer to `GET /gateway/bot`.
 *
 * It keeps what a bot can observe (its messages and their edits, open interactions, the gateway session
 * and its sequence numbers) and refuses bad calls as Discord does, so the SDK's own handling runs:
 * @discordjs/rest waits out 429s and retries 5xx by itself, @discordjs/ws resumes a dropped session.
 *
 * Like Discord, and easy to forget in a bot:
 * - the bot's own messages come back over the gateway (MESSAGE_CREATE, MESSAGE_UPDATE);
 * - without the MESSAGE_CONTENT intent, guild messages that do not mention the bot arrive with empty content;
 * - DMs are not announced by a CHANNEL_CREATE, so discord.js needs `partials: [Partials.Channel]` for them
 *   (message events carry `channel_type`, which is how it tells a DM apart);
 * - components sent without an `id` come back numbered (1, 2, ... in document order);
 * - an interaction must be answered within 3 seconds, once.
 *
 * Where it differs from Discord, it is stricter, simpler or faster:
 * - one guild with one text channel, one gateway session at a time (the latest IDENTIFY), one shard;
 * - Retry-After may be fractional (Discord rounds it up), so tests wait less; no real rate-limit accounting:
 *   answers say plenty is left unless a fault says otherwise;
 * - JSON bodies only (no file uploads); lengths count UTF-16 code units;
 * - the gateway sends uncompressed text frames whatever compression was asked (@discordjs/ws parses any
 *   text frame as plain JSON) and refuses ETF with 4012, so a client gives up at once instead of retrying;
 * - ops 3, 4 and 8 are accepted and ignored: no presences, voice or GUILD_MEMBERS_CHUNK.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export interface FakeDiscordOptions {
  /** The bot token; its first part is the base64 of the bot's id, as in real tokens. */
  token?: string;
  /** HELLO's heartbeat_interval; Discord's is 41250 ms. */
  heartbeatIntervalMs?: number;
  /** How long an interaction waits for its first callback; Discord's is 3 s. */
  interactionDeadlineMs?: number;
}

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: string | null;
  bot?: boolean;
}

export interface RecordedCall {
  method: string;
  /** The route template, e.g. `POST /channels/:channelId/messages`, or the bare path when none matched. */
  route: string;
  /** The path below `/api/v10`, e.g. `/channels/222/messages`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The status answered; 0 for a connection the fake hung up. */
  status: number;
  /** Date.now() when the call arrived. */
  at: number;
}

/** A bot message as it stands now. */
export interface BotMessage {
  id: string;
  channelId: string;
  content: string;
  embeds: unknown[];
  components: unknown[];
  flags: number;
  /** The id of the message it replies to. */
  replyTo?: string;
  /** Who the message notifies, as Discord parsed its content under its allowed_mentions. */
  pings: { users: string[]; roles: string[]; everyone: boolean };
  edits: number;
  /** Every content the message has had, oldest first, the current one last. */
  history: string[];
}

export interface InteractionCallback {
  interactionId: string;
  /** 4 CHANNEL_MESSAGE_WITH_SOURCE, 5 DEFERRED_CHANNEL_MESSAGE, 6 DEFERRED_UPDATE_MESSAGE, 7 UPDATE_MESSAGE, 9 MODAL. */
  type: number;
  data?: Record<string, unknown>;
  at: number;
}

export interface IdentifyRecord {
  token: string;
  intents: number;
  properties: Record<string, unknown>;
  shard?: [number, number];
  compress: boolean;
  at: number;
}

export interface ResumeRecord {
  sessionId: string;
  /** The sequence number the client said it had. */
  seq: number;
  /** Sequence numbers of the dispatches sent again, in order. */
  replayed: number[];
  at: number;
}

export interface ConnectionRecord {
  /** `/` for the gateway url, `/resume` for the resume_gateway_url of READY. */
  path: string;
  query: Record<string, string>;
  at: number;
}

/**
 * What failNext answers instead: a status (429 with Discord's rate-limit body and headers, or any other
 * with `body` or a generic Discord error body), or a hang-up without an answer.
 */
export type RestFault =
  { status: number; retryAfterSeconds?: number; global?: boolean; body?: object } | { hangUp: true };

export interface PushMessageOptions {
  /** A channel of the fake's guild, or any other id for a DM channel (when guildId is left out). */
  channelId: string;
  /** Defaults to the guild of channelId when the fake knows it; left out for a DM. */
  guildId?: string;
  authorId: string;
  authorName?: string;
  /** As Discord shows it; with mentionsBot, `<@botId> ` is put in front unless already there. */
  content: string;
  mentionsBot?: boolean;
  /** Posts in this thread of channelId, announcing it with THREAD_CREATE the first time. */
  threadId?: string;
  /** The id of a message it replies to. */
  replyTo?: string;
}

export interface PushButtonOptions {
  channelId: string;
  /** A bot message of that channel showing a button with customId. */
  messageId: string;
  userId: string;
  customId: string;
}

export interface PushModalSubmitOptions {
  channelId: string;
  userId: string;
  /** The modal's custom_id; when the bot showed that modal, the submission mirrors its layout. */
  customId: string;
  /** Text input custom_id → value (string), or select custom_id → values. */
  values: Record<string, string | string[]>;
  /** The message whose component opened the modal, if any. */
  messageId?: string;
}

export interface Pushed {
  /** The dispatch's sequence number, or null when no gateway session took it (no client, or no intent). */
  seq: number | null;
}

export interface PushedMessage extends Pushed {
  messageId: string;
}

export interface PushSlashCommandOptions {
  channelId: string;
  userId: string;
  /** A command the app registered (PUT /applications/:id/commands). */
  name: string;
  /** String options by name, as the user filled them in. */
  options?: Record<string, string>;
}

/** A command as the app registered it, with the id Discord gave it. */
export interface RegisteredCommand {
  id: string;
  name: string;
  description: string;
  options?: Array<{ type: number; name: string; description: string; required?: boolean }>;
}

export interface PushedInteraction extends Pushed {
  interactionId: string;
  token: string;
}

type Predicate<T> = () => T | undefined | false | null;

export interface FakeDiscord {
  /** What discord.js's `rest.api` option takes: `http://127.0.0.1:PORT/api`. */
  readonly restUrl: string;
  /** `ws://127.0.0.1:PORT`, as GET /gateway/bot answers it. */
  readonly gatewayUrl: string;
  readonly token: string;
  readonly botUser: DiscordUser;
  /** Also the bot user's id, as for every bot created since 2016. */
  readonly applicationId: string;
  readonly guildId: string;
  /** The guild's text channel. */
  readonly channelId: string;
  /** Every REST call in order. */
  readonly calls: RecordedCall[];
  /** Every interaction callback the fake accepted, in order. */
  readonly interactionCallbacks: InteractionCallback[];
  readonly identifies: IdentifyRecord[];
  readonly resumes: ResumeRecord[];
  readonly connections: ConnectionRecord[];
  /** Heartbeats received and acknowledged. */
  readonly heartbeats: number;
  /** The last sequence number of the current session; 0 without one. */
  readonly sequence: number;
  /** REST calls of one route: a template (`POST /channels/:id/messages`) or a concrete path. */
  callsOf(route: string): RecordedCall[];
  /** The bot's messages in a channel, in order, deleted ones left out. */
  messages(channelId: string): BotMessage[];
  /** The next `times` calls of `route` (as in callsOf) get this answer instead of their own. */
  failNext(route: string, fault: RestFault, times?: number): void;
  /** The next IDENTIFY is answered by closing the connection with this code (4004 Authentication failed). */
  failNextIdentify(closeCode?: number): void;
  /** The first IDENTIFY, once it has come. */
  waitForIdentify(timeoutMs?: number): Promise<IdentifyRecord>;
  pushMessage(options: PushMessageOptions): PushedMessage;
  /** An INTERACTION_CREATE of a button press (type 3, component_type 2). */
  pushButton(options: PushButtonOptions): PushedInteraction;
  /** An INTERACTION_CREATE of a modal submission (type 5). */
  pushModalSubmit(options: PushModalSubmitOptions): PushedInteraction;
  /** The application's global commands, as it last registered them. */
  readonly commands: RegisteredCommand[];
  /** An INTERACTION_CREATE of a registered slash command (type 2, chat input). */
  pushSlashCommand(options: PushSlashCommandOptions): PushedInteraction;
  /** Any other dispatch, with its own payload; `intent` is the bit the session must have asked for. */
  dispatch(event: string, data: object, intent?: number): number | null;
  /**
   * Cuts the connection without a close frame, as a network failure does; the session stays resumable.
   * With replayAfter, the RESUME that follows replays from there rather than from the client's sequence
   * number, as if the client had never seen the later dispatches: the way to test duplicate handling.
   */
  dropConnection(options?: { replayAfter?: number }): Promise<void>;
  /**
   * Closes the live connection with a close frame of this code, as Discord does. After the codes
   * Discord documents as not to reconnect with (4004, 4010-4014) the session is gone; after the
   * others (4000 Unknown error, 4009 Session timed out, ...) it can be resumed.
   */
  closeConnection(code: number): Promise<void>;
  /** Sends every dispatch after `afterSeq` again on the live connection; gives their sequence numbers. */
  replay(afterSeq: number): number[];
  /** Polls `predicate` every 20 ms until it gives a value (not undefined, false or null). */
  waitFor<T>(predicate: Predicate<T>, what?: string, timeoutMs?: number): Promise<T>;
  /** Closes every connection, gateway and REST. */
  close(): Promise<void>;
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = new FakeDiscordServer(options);
  await fake.listen();
  return fake;
}

/** A refusal, thrown by a handler and written as Discord's `{message, code, errors?}`. */
export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: object,
  ) {
    super(message);
  }

  get body(): object {
    return compact({ message: this.message, code: this.code, errors: this.errors });
  }
}

// ---- constants

const API_PREFIX = '/api/v10';
const RESUME_PATH = '/resume';
const DEFAULT_BOT_ID = '1234567890123456789';
const DEFAULT_TOKEN = `${Buffer.from(DEFAULT_BOT_ID).toString('base64url')}.GfAk3d.fake-discord-bot-token-for-tests`;
const GUILD_ID = '111111111111111111';
const TEXT_CHANNEL_ID = '222222222222222222';
const DISCORD_EPOCH = 1_420_070_400_000n;
const MAX_CONTENT = 2000;
const MAX_EMBEDS = 10;
const MAX_ROWS = 5;
const MAX_CUSTOM_ID = 100;
const MAX_BUTTON_LABEL = 80;

const Intent = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 };
const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, Presence: 3, Voice: 4, Resume: 6, Members: 8 } as const;
const ChannelType = { GuildText: 0, DM: 1, PublicThread: 11 };
const InteractionType = { ApplicationCommand: 2, MessageComponent: 3, ModalSubmit: 5 };
const Callback = { Message: 4, DeferredMessage: 5, DeferredUpdate: 6, Update: 7, Modal: 9 };
const MessageFlag = { IsComponentsV2: 1 << 15, Ephemeral: 1 << 6, Loading: 1 << 7 };
const MessageType = { Default: 0, Reply: 19 };
const ComponentType = { Row: 1, Button: 2, TextInput: 4, Label: 18 };
const LINK_BUTTON_STYLE = 5;
const CLOSE_REASONS: Record<number, string> = {
  4001: 'Unknown opcode.',
  4002: 'Decode error.',
  4003: 'Not authenticated.',
  4000: 'Unknown error.',
  4004: 'Authentication failed.',
  4005: 'Already authenticated.',
  4007: 'Invalid seq.',
  4009: 'Session timed out.',
  4010: 'Invalid shard.',
  4011: 'Sharding required.',
  4012: 'Invalid API version.',
  4013: 'Invalid intent(s).',
  4014: 'Disallowed intent(s).',
};
/** Close codes after which Discord says not to reconnect: the session ends with them. */
const FINAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);
// What a bot in a guild typically may do: view, send, embed, attach, read history, react, threads.
const BOT_PERMISSIONS = String(
  [6, 10, 11, 14, 15, 16, 31, 35, 38].reduce((bits, bit) => bits | (1n << BigInt(bit)), 0n),
);

const Codes = {
  UnknownChannel: 10003,
  UnknownMessage: 10008,
  UnknownWebhook: 10015,
  UnknownInteraction: 10062,
  AlreadyAcknowledged: 40060,
  CannotEditOthers: 50005,
  EmptyMessage: 50006,
  InvalidWebhookToken: 50027,
  InvalidFormBody: 50035,
};

const unauthorized = () => new DiscordApiError(401, 0, '401: Unauthorized');
const unknownChannel = () => new DiscordApiError(404, Codes.UnknownChannel, 'Unknown Channel');
const unknownMessage = () => new DiscordApiError(404, Codes.UnknownMessage, 'Unknown Message');
const unknownInteraction = () => new DiscordApiError(404, Codes.UnknownInteraction, 'Unknown interaction');
const emptyMessage = () => new DiscordApiError(400, Codes.EmptyMessage, 'Cannot send an empty message');

// ---- internal shapes

type Json = Record<string, unknown>;

interface ApiChannel extends Json {
  id: string;
  type: number;
  guild_id?: string;
}

interface ApiMessage extends Json {
  id: string;
  channel_id: string;
  author: DiscordUser;
  content: string;
  embeds: unknown[];
  components: unknown[];
  flags: number;
}

interface StoredMessage {
  message: ApiMessage;
  fromBot: boolean;
  edits: number;
  history: string[];
  deleted: boolean;
}

interface OpenInteraction {
  id: string;
  token: string;
  type: number;
  channelId: string;
  user: DiscordUser;
  /** The message a component was on, or that opened a modal. */
  messageId?: string;
  createdAt: number;
  /** The type of the callback that acknowledged it. */
  answeredWith?: number;
  /** What `@original` names once answered. */
  originalId?: string;
}

interface Dispatch {
  op: 0;
  t: string;
  s: number;
  d: unknown;
}

interface Session {
  id: string;
  intents: number;
  seq: number;
  log: Dispatch[];
  socket?: WebSocket;
  /** Set by dropConnection: the next RESUME replays from here rather than from the client's seq. */
  replayAfter?: number;
}

interface Peer {
  socket: WebSocket;
  authenticated: boolean;
}

interface RestRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Json;
  /** The JSON body as sent, for the routes whose body is not an object (an array of commands). */
  raw: unknown;
}

interface Answer {
  status: number;
  body?: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  /** Interaction callbacks and webhooks carry their own token, not the bot's. */
  auth: boolean;
  run(request: RestRequest): Answer;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const NO_CONTENT: Answer = { status: 204 };

class FakeDiscordServer implements FakeDiscord {
  restUrl = '';
  gatewayUrl = '';
  readonly token: string;
  readonly botUser: DiscordUser;
  readonly applicationId: string;
  readonly guildId = GUILD_ID;
  readonly channelId = TEXT_CHANNEL_ID;
  private readonly heartbeatIntervalMs: number;
  private readonly interactionDeadlineMs: number;
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private readonly wss = new WebSocketServer({ server: this.server });
  private readonly peers = new Set<Peer>();
  private readonly log: RecordedCall[] = [];
  private readonly callbacks: InteractionCallback[] = [];
  private registered: RegisteredCommand[] = [];
  private readonly identifyLog: IdentifyRecord[] = [];
  private readonly resumeLog: ResumeRecord[] = [];
  private readonly connectionLog: ConnectionRecord[] = [];
  private readonly faults = new Map<string, RestFault[]>();
  private readonly identifyFailures: number[] = [];
  private readonly users = new Map<string, DiscordUser>();
  private readonly channels = new Map<string, ApiChannel>();
  private readonly store = new Map<string, Map<string, StoredMessage>>();
  private readonly interactions = new Map<string, OpenInteraction>();
  /** The last modal each custom_id was shown as, so a submission can mirror its layout. */
  private readonly modals = new Map<string, Json>();
  private readonly routes: Route[];
  private session: Session | undefined;
  private heartbeatCount = 0;
  private sessionStarts = 1000;
  private lastId = 0n;
  private closing: Promise<void> | undefined;

  constructor(options: FakeDiscordOptions) {
    this.token = options.token ?? DEFAULT_TOKEN;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
    this.interactionDeadlineMs = options.interactionDeadlineMs ?? 3_000;
    this.applicationId = botIdOf(this.token);
    this.botUser = {
      id: this.applicationId,
      username: 'cairn',
      global_name: 'Cairn',
      discriminator: '0',
      avatar: null,
      bot: true,
    };
    this.users.set(this.botUser.id, this.botUser);
    this.channels.set(TEXT_CHANNEL_ID, guildTextChannel(TEXT_CHANNEL_ID, 'general'));
    this.routes = this.buildRoutes();
    this.wss.on('connection', (socket, request) => this.onConnection(socket, request));
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server.once('listening', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.restUrl = `http://127.0.0.1:${port}/api`;
    this.gatewayUrl = `ws://127.0.0.1:${port}`;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    for (const peer of this.peers) peer.socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  // ---- inspection

  get calls(): RecordedCall[] {
    return [...this.log];
  }

  get interactionCallbacks(): InteractionCallback[] {
    return [...this.callbacks];
  }

  get identifies(): IdentifyRecord[] {
    return [...this.identifyLog];
  }

  get resumes(): ResumeRecord[] {
    return [...this.resumeLog];
  }

  get connections(): ConnectionRecord[] {
    return [...this.connectionLog];
  }

  get heartbeats(): number {
    return this.heartbeatCount;
  }

  get sequence(): number {
    return this.session?.seq ?? 0;
  }

  callsOf(route: string): RecordedCall[] {
    return this.log.filter((call) => routeMatches(route, call.route, `${call.method} ${call.path}`));
  }

  messages(channelId: string): BotMessage[] {
    const stored = [...(this.store.get(channelId)?.values() ?? [])];
    return stored.filter((entry) => entry.fromBot && !entry.deleted).map(botMessageOf);
  }

  waitForIdentify(timeoutMs = 10_000): Promise<IdentifyRecord> {
    return this.waitFor(() => this.identifyLog[0], 'an IDENTIFY', timeoutMs);
  }

  async waitFor<T>(predicate: Predicate<T>, what = 'a condition', timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = predicate();
      if (value !== undefined && value !== false && value !== null) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  // ---- test controls

  failNext(route: string, fault: RestFault, times = 1): void {
    const queue = this.faults.get(route) ?? [];
    queue.push(...Array.from({ length: times }, () => fault));
    this.faults.set(route, queue);
  }

  failNextIdentify(closeCode = 4004): void {
    this.identifyFailures.push(closeCode);
  }

  pushMessage(options: PushMessageOptions): PushedMessage {
    const channel = this.channelForPush(options);
    const author = this.rememberUser(options.authorId, options.authorName);
    const mention = `<@${this.botUser.id}>`;
    const content =
      options.mentionsBot && !options.content.includes(mention)
        ? `${mention} ${options.content}`
        : options.content;
    const message = this.newMessage(channel.id, author, {
      content,
      mentions: options.mentionsBot ? [this.botUser] : [],
      ...this.replyFields(channel.id, options.replyTo),
    });
    this.keep(message, false);
    return { messageId: message.id, seq: this.dispatchMessage('MESSAGE_CREATE', message) };
  }

  pushButton(options: PushButtonOptions): PushedInteraction {
    const stored = this.store.get(options.channelId)?.get(options.messageId);
    if (!stored || stored.deleted) {
      throw new Error(`pushButton: channel ${options.channelId} has no message ${options.messageId}`);
    }
    const button = findComponent(stored.message.components, options.customId);
    if (!button || button.type !== ComponentType.Button || button.disabled === true) {
      throw new Error(`pushButton: message ${options.messageId} shows no enabled button ${options.customId}`);
    }
    const data = { custom_id: options.customId, component_type: ComponentType.Button };
    return this.pushInteraction(InteractionType.MessageComponent, options, data, options.messageId);
  }

  pushModalSubmit(options: PushModalSubmitOptions): PushedInteraction {
    const modal = this.modals.get(options.customId);
    const components = modal ? mirrorModal(modal, options.values) : rowsOf(options.values);
    const data = { custom_id: options.customId, components };
    return this.pushInteraction(InteractionType.ModalSubmit, options, data, options.messageId);
  }

  pushSlashCommand(options: PushSlashCommandOptions): PushedInteraction {
    const command = this.registered.find((entry) => entry.name === options.name);
    if (!command) throw new Error(`pushSlashCommand: the app registered no command ${options.name}`);
    const filled = Object.entries(options.options ?? {}).map(([name, value]) => ({ name, type: 3, value }));
    const data = compact({
      id: command.id,
      name: command.name,
      type: 1,
      options: filled.length ? filled : undefined,
    });
    return this.pushInteraction(InteractionType.ApplicationCommand, options, data, undefined);
  }

  get commands(): RegisteredCommand[] {
    return this.registered.map((command) => ({ ...command }));
  }

  /** PUT /applications/:id/commands: the list replaces every global command the app had. */
  private registerCommands({ params, raw: body }: RestRequest): Answer {
    if (params.applicationId !== this.applicationId)
      throw new DiscordApiError(404, 10002, 'Unknown Application');
    if (!Array.isArray(body)) throw formError([], 'BASE_TYPE_ARRAY', 'Must be an array.');
    const previous = new Map(this.registered.map((command) => [command.name, command.id]));
    this.registered = (body as Json[]).map((entry) => {
      const name = String(entry.name ?? '');
      if (!/^[-_\p{L}\p{N}]{1,32}$/u.test(name) || name !== name.toLowerCase()) {
        throw formError(['0', 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
      }
      const description = String(entry.description ?? '');
      if (description.length < 1 || description.length > 100) {
        throw formError(['0', 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
      }
      const options = Array.isArray(entry.options)
        ? (entry.options as RegisteredCommand['options'])
        : undefined;
      return compact({
        id: previous.get(name) ?? this.nextId(),
        name,
        description,
        options,
      }) as RegisteredCommand;
    });
    return ok(
      this.registered.map((command) => ({
        ...command,
        application_id: this.applicationId,
        type: 1,
        version: this.nextId(),
      })),
    );
  }

  dispatch(event: string, data: object, intent?: number): number | null {
    const session = this.session;
    if (!session || (intent !== undefined && (session.intents & intent) === 0)) return null;
    const entry: Dispatch = { op: Op.Dispatch, t: event, s: ++session.seq, d: data };
    session.log.push(entry);
    if (session.socket) send(session.socket, entry);
    return entry.s;
  }

  async dropConnection(options: { replayAfter?: number } = {}): Promise<void> {
    const socket = this.session?.socket;
    if (!this.session || !socket) throw new Error('dropConnection: no client is connected');
    this.session.replayAfter = options.replayAfter;
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.terminate();
    await closed;
  }

  async closeConnection(code: number): Promise<void> {
    const socket = this.session?.socket;
    if (!this.session || !socket) throw new Error('closeConnection: no client is connected');
    if (FINAL_CLOSE_CODES.has(code)) this.session = undefined;
    const closed = new Promise((resolve) => socket.once('close', resolve));
    closeWith(socket, code);
    await closed;
  }

  replay(afterSeq: number): number[] {
    const socket = this.session?.socket;
    if (!this.session || !socket) throw new Error('replay: no client is connected');
    const entries = this.session.log.filter((entry) => entry.s > afterSeq);
    for (const entry of entries) send(socket, entry);
    return entries.map((entry) => entry.s);
  }

  // ---- REST

  private buildRoutes(): Route[] {
    const route = (spec: string, run: Route['run'], auth = true): Route => {
      const [method = '', path = ''] = spec.split(' ');
      const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
      const pattern = new RegExp(`^${path.replace(/:\w+/g, '([^/]+)')}$`);
      return { method, template: spec, pattern, names, auth, run };
    };
    return [
      route('GET /gateway/bot', () => ok(this.gatewayBot())),
      route('GET /users/@me', () => ok(this.botUser)),
      route('POST /users/@me/channels', ({ body }) => ok(this.openDm(body))),
      route('GET /channels/:channelId', ({ params }) => ok(this.knownChannel(params.channelId))),
      route('POST /channels/:channelId/messages', ({ params, body }) => ok(this.createMessage(params, body))),
      route('GET /channels/:channelId/messages/:messageId', ({ params }) =>
        ok(this.storedMessage(params).message),
      ),
      route('PATCH /channels/:channelId/messages/:messageId', ({ params, body }) =>
        ok(this.editMessage(params, body)),
      ),
      route('DELETE /channels/:channelId/messages/:messageId', ({ params }) => this.deleteMessage(params)),
      route(
        'POST /channels/:channelId/typing',
        ({ params }) => (this.knownChannel(params.channelId), NO_CONTENT),
      ),
      route(
        'POST /interactions/:interactionId/:token/callback',
        (request) => this.interactionCallback(request),
        false,
      ),
      route('PUT /applications/:applicationId/commands', (request) => this.registerCommands(request)),
      route('POST /webhooks/:applicationId/:token', (request) => ok(this.followUp(request)), false),
      route(
        'GET /webhooks/:applicationId/:token/messages/:messageId',
        (request) => ok(this.webhookMessage(request).message),
        false,
      ),
      route(
        'PATCH /webhooks/:applicationId/:token/messages/:messageId',
        (request) => ok(this.editWebhookMessage(request)),
        false,
      ),
      route(
        'DELETE /webhooks/:applicationId/:token/messages/:messageId',
        (request) => this.deleteWebhookMessage(request),
        false,
      ),
    ];
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.restUrl);
    const method = request.method ?? 'GET';
    const path = url.pathname.startsWith(`${API_PREFIX}/`)
      ? url.pathname.slice(API_PREFIX.length)
      : url.pathname;
    const match = url.pathname === path ? undefined : this.match(method, path);
    const call: RecordedCall = {
      method,
      route: match?.route.template ?? `${method} ${path}`,
      path,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 0,
      at: Date.now(),
    };
    this.log.push(call);
    try {
      call.body = await readJson(request);
      if (!match) throw new DiscordApiError(404, 0, '404: Not Found');
      if (match.route.auth && request.headers.authorization !== `Bot ${this.token}`) throw unauthorized();
      const fault = this.takeFault(call);
      if (fault) return this.answerFault(call, response, fault);
      const body = isObject(call.body) ? call.body : {};
      const answer = match.route.run({ params: match.params, query: url.searchParams, body, raw: call.body });
      this.answer(call, response, answer.status, answer.body);
    } catch (error) {
      const refusal = error instanceof DiscordApiError ? error : new DiscordApiError(500, 0, `500: ${error}`);
      this.answer(call, response, refusal.status, refusal.body);
    }
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      const found = route.method === method ? route.pattern.exec(path) : null;
      if (!found) continue;
      const values = found.slice(1).map((value) => decodeURIComponent(value));
      return {
        route,
        params: Object.fromEntries(route.names.map((name, index) => [name, values[index] ?? ''])),
      };
    }
    return undefined;
  }

  private takeFault(call: RecordedCall): RestFault | undefined {
    for (const [route, queue] of this.faults) {
      if (queue.length > 0 && routeMatches(route, call.route, `${call.method} ${call.path}`))
        return queue.shift();
    }
    return undefined;
  }

  private answerFault(call: RecordedCall, response: ServerResponse, fault: RestFault): void {
    if ('hangUp' in fault) {
      response.socket?.destroy();
      return;
    }
    if (fault.status === 429) return this.answerRateLimited(call, response, fault);
    const body = fault.body ?? { message: `${fault.status}: Fake fault`, code: 0 };
    this.answer(call, response, fault.status, body);
  }

  /** Discord's 429: the body says how long to wait, and so do the headers @discordjs/rest reads. */
  private answerRateLimited(
    call: RecordedCall,
    response: ServerResponse,
    fault: { retryAfterSeconds?: number; global?: boolean },
  ): void {
    const seconds = fault.retryAfterSeconds ?? 1;
    const global = fault.global ?? false;
    const headers: Record<string, string> = global
      ? { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' }
      : { ...rateLimitHeaders(call.route, 0, seconds), 'X-RateLimit-Scope': 'user' };
    const body = { message: 'You are being rate limited.', retry_after: seconds, global };
    this.answer(call, response, 429, body, { ...headers, 'Retry-After': String(seconds) });
  }

  private answer(
    call: RecordedCall,
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = rateLimitHeaders(call.route, 4, 5),
  ): void {
    call.status = status;
    if (response.destroyed || response.writableEnded) return;
    if (status === 204 || body === undefined) return void response.writeHead(status, headers).end();
    response.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }

  // ---- REST: gateway, users, channels

  private gatewayBot(): Json {
    const limit = { total: 1000, remaining: this.sessionStarts, reset_after: 86_400_000, max_concurrency: 1 };
    return { url: this.gatewayUrl, shards: 1, session_start_limit: limit };
  }

  private openDm(body: Json): ApiChannel {
    const recipient = this.users.get(String(body.recipient_id));
    if (!recipient) {
      throw formError(
        ['recipient_id'],
        'NUMBER_TYPE_COERCE',
        `Value "${body.recipient_id}" is not snowflake.`,
      );
    }
    const existing = [...this.channels.values()].find((channel) => dmRecipient(channel)?.id === recipient.id);
    if (existing) return existing;
    const channel = dmChannel(this.nextId(), recipient);
    this.channels.set(channel.id, channel);
    return channel;
  }

  private knownChannel(id: string | undefined): ApiChannel {
    const channel = this.channels.get(id ?? '');
    if (!channel) throw unknownChannel();
    return channel;
  }

  // ---- REST: messages

  private createMessage(params: Record<string, string>, body: Json): ApiMessage {
    const channel = this.knownChannel(params.channelId);
    const fields = {
      ...shown(messageFields(body)),
      ...this.referenceFields(channel.id, body.message_reference),
    };
    const message = this.newMessage(channel.id, this.botUser, {
      ...fields,
      ...this.mentionFields(fields, body.allowed_mentions),
    });
    if (isEmpty(message) && !hasAttachments(body)) throw emptyMessage();
    this.keep(message, true);
    this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  private storedMessage(params: Record<string, string>): StoredMessage {
    this.knownChannel(params.channelId);
    const stored = this.store.get(params.channelId ?? '')?.get(params.messageId ?? '');
    if (!stored || stored.deleted) throw unknownMessage();
    return stored;
  }

  private editMessage(params: Record<string, string>, body: Json): ApiMessage {
    const stored = this.storedMessage(params);
    if (!stored.fromBot) {
      throw new DiscordApiError(
        403,
        Codes.CannotEditOthers,
        'Cannot edit a message authored by another user',
      );
    }
    return this.applyEdit(stored, body);
  }

  /** PATCH semantics: a field left out stays, a field given (null included) replaces. */
  private applyEdit(stored: StoredMessage, body: Json): ApiMessage {
    const fields = messageFields(body);
    const next: ApiMessage = {
      ...stored.message,
      content: 'content' in body ? (fields.content ?? '') : stored.message.content,
      embeds: 'embeds' in body ? (fields.embeds ?? []) : stored.message.embeds,
      components: 'components' in body ? numbered(fields.components ?? []) : stored.message.components,
      // A deferred reply stops "thinking" once edited.
      flags: ('flags' in body ? (fields.flags ?? 0) : stored.message.flags) & ~MessageFlag.Loading,
      edited_timestamp: new Date().toISOString(),
    };
    if ('content' in body) Object.assign(next, this.mentionFields(next, body.allowed_mentions));
    if (isEmpty(next)) throw emptyMessage();
    stored.message = next;
    stored.edits += 1;
    stored.history.push(next.content);
    this.dispatchMessage('MESSAGE_UPDATE', next);
    return next;
  }

  private deleteMessage(params: Record<string, string>): Answer {
    const stored = this.storedMessage(params);
    this.remove(stored);
    return NO_CONTENT;
  }

  private remove(stored: StoredMessage): void {
    stored.deleted = true;
    const { id, channel_id } = stored.message;
    const guildId = this.channels.get(channel_id)?.guild_id;
    this.dispatch('MESSAGE_DELETE', compact({ id, channel_id, guild_id: guildId }), messageIntent(guildId));
  }

  /** A reply must name a message of the channel, unless it says it does not mind. */
  private referenceFields(channelId: string, reference: unknown): Json {
    if (!isObject(reference) || reference.message_id === undefined) return {};
    const target = this.store.get(channelId)?.get(String(reference.message_id));
    if (target && !target.deleted) return this.replyFields(channelId, target.message.id);
    if (reference.fail_if_not_exists === false) return {};
    throw formError(['message_reference'], 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
  }

  private replyFields(channelId: string, messageId: string | undefined): Json {
    if (messageId === undefined) return {};
    const target = this.store.get(channelId)?.get(messageId);
    if (!target) throw new Error(`no message ${messageId} in channel ${channelId} to reply to`);
    const guildId = this.channels.get(channelId)?.guild_id;
    return {
      type: MessageType.Reply,
      message_reference: compact({
        type: 0,
        message_id: messageId,
        channel_id: channelId,
        guild_id: guildId,
      }),
      referenced_message: target.message,
    };
  }

  /**
   * Whom a bot's message notifies. Discord parses `<@id>`, `<@&id>`, `@everyone` and `@here` in the
   * content and keeps those allowed_mentions allows; without allowed_mentions everything is allowed
   * and a reply notifies the author it answers (with it, only when `replied_user` is true).
   */
  private mentionFields(fields: Json, allowedMentions: unknown): Json {
    const content = typeof fields.content === 'string' ? fields.content : '';
    const allowed = parseAllowedMentions(allowedMentions);
    const permits = (kind: 'users' | 'roles' | 'everyone', id?: string) =>
      !allowed ||
      allowed.parse.includes(kind) ||
      (id !== undefined && (allowed[kind as 'users'] ?? []).includes(id));
    const users = [...content.matchAll(/<@!?(\d{17,20})>/g)]
      .map((match) => match[1]!)
      .filter((id) => permits('users', id));
    const replied = (fields.referenced_message as ApiMessage | undefined)?.author;
    if (replied && (allowed ? allowed.replied_user : true)) users.push(replied.id);
    const roles = [...content.matchAll(/<@&(\d{17,20})>/g)]
      .map((match) => match[1]!)
      .filter((id) => permits('roles', id));
    return {
      mentions: [...new Set(users)].map((id) => this.users.get(id) ?? this.rememberUser(id)),
      mention_roles: [...new Set(roles)],
      mention_everyone: /@(everyone|here)\b/.test(content) && permits('everyone'),
    };
  }

  private newMessage(channelId: string, author: DiscordUser, fields: Json): ApiMessage {
    return {
      type: MessageType.Default,
      tts: false,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      pinned: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      components: [],
      flags: 0,
      content: '',
      ...fields,
      id: this.nextId(),
      channel_id: channelId,
      author,
    };
  }

  private keep(message: ApiMessage, fromBot: boolean): StoredMessage {
    const stored = { message, fromBot, edits: 0, history: [message.content], deleted: false };
    const channel = this.store.get(message.channel_id) ?? new Map<string, StoredMessage>();
    channel.set(message.id, stored);
    this.store.set(message.channel_id, channel);
    const known = this.channels.get(message.channel_id);
    if (known) known.last_message_id = message.id;
    return stored;
  }

  /** A message event as the session sees it: in a guild with its member, without content unless allowed. */
  private dispatchMessage(event: string, message: ApiMessage): number | null {
    if ((message.flags & MessageFlag.Ephemeral) !== 0) return null; // only the interaction's user sees it
    const guildId = this.channels.get(message.channel_id)?.guild_id;
    const sees = (this.session?.intents ?? 0) & Intent.MessageContent;
    const mentioned = (message.mentions as DiscordUser[]).some((user) => user.id === this.botUser.id);
    const hidden = guildId !== undefined && !sees && !mentioned && message.author.id !== this.botUser.id;
    const visible = hidden
      ? { ...message, content: '', embeds: [], attachments: [], components: [] }
      : message;
    // Message events name the channel's type, so a client can place a DM it has never seen (discord.js does).
    const channelType = this.channels.get(message.channel_id)?.type;
    const located = { ...visible, channel_type: channelType };
    const data = guildId ? { ...located, guild_id: guildId, member: memberOf() } : located;
    return this.dispatch(event, data, messageIntent(guildId));
  }

  // ---- REST: interactions

  private interactionCallback({ params, query, body }: RestRequest): Answer {
    const interaction = this.interactions.get(params.interactionId ?? '');
    if (!interaction || interaction.token !== params.token) throw unknownInteraction();
    if (interaction.answeredWith !== undefined) {
      throw new DiscordApiError(400, Codes.AlreadyAcknowledged, 'Interaction has already been acknowledged.');
    }
    if (Date.now() - interaction.createdAt > this.interactionDeadlineMs) throw unknownInteraction();
    const type = Number(body.type);
    const data = isObject(body.data) ? body.data : undefined;
    const message = this.answerInteraction(interaction, type, data ?? {});
    interaction.answeredWith = type;
    interaction.originalId = message?.id;
    this.callbacks.push(compact({ interactionId: interaction.id, type, data, at: Date.now() }));
    if (query.get('with_response') !== 'true') return NO_CONTENT;
    return ok(callbackResponse(interaction, type, message));
  }

  /** Carries out one callback; gives the message `@original` names afterwards, if any. */
  private answerInteraction(interaction: OpenInteraction, type: number, data: Json): ApiMessage | undefined {
    switch (type) {
      case Callback.Message:
        return this.interactionReply(interaction, shown(messageFields(data)), data.allowed_mentions);
      case Callback.DeferredMessage:
        return this.interactionReply(interaction, { flags: (Number(data.flags) || 0) | MessageFlag.Loading });
      case Callback.DeferredUpdate:
        return this.componentMessage(interaction).message;
      case Callback.Update:
        return this.applyEdit(this.componentMessage(interaction), data);
      case Callback.Modal:
        return void this.showModal(interaction, data);
      default:
        throw formError(['type'], 'BASE_TYPE_CHOICES', `Value must be one of {4, 5, 6, 7, 9}.`);
    }
  }

  private interactionReply(interaction: OpenInteraction, fields: Json, allowed?: unknown): ApiMessage {
    const message = this.newMessage(interaction.channelId, this.botUser, {
      ...fields,
      ...this.mentionFields(fields, allowed),
      interaction_metadata: {
        id: interaction.id,
        type: interaction.type,
        user: interaction.user,
        authorizing_integration_owners: {},
        interacted_message_id: interaction.messageId,
      },
      webhook_id: this.applicationId,
      application_id: this.applicationId,
    });
    if (isEmpty(message) && (message.flags & MessageFlag.Loading) === 0) throw emptyMessage();
    this.keep(message, true);
    this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  private componentMessage(interaction: OpenInteraction): StoredMessage {
    const stored = this.store.get(interaction.channelId)?.get(interaction.messageId ?? '');
    if (!stored)
      throw formError(['type'], 'INTERACTION_RESPONSE_TYPE_INVALID', 'This interaction has no message.');
    return stored;
  }

  private showModal(interaction: OpenInteraction, data: Json): void {
    if (interaction.type === InteractionType.ModalSubmit) {
      throw formError(['type'], 'INTERACTION_RESPONSE_TYPE_INVALID', 'A modal cannot open another modal.');
    }
    const errors = new FormErrors();
    if (typeof data.custom_id !== 'string' || data.custom_id === '')
      errors.add(['data', 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
    if (typeof data.title !== 'string' || data.title === '')
      errors.add(['data', 'title'], 'BASE_TYPE_REQUIRED', 'This field is required');
    if (!Array.isArray(data.components) || data.components.length === 0) {
      errors.add(['data', 'components'], 'BASE_TYPE_REQUIRED', 'This field is required');
    }
    errors.throwIfAny();
    this.modals.set(String(data.custom_id), data);
  }

  // ---- REST: interaction webhooks

  private webhookInteraction({ params }: RestRequest): OpenInteraction {
    const interaction = [...this.interactions.values()].find((open) => open.token === params.token);
    if (!interaction) throw new DiscordApiError(401, Codes.InvalidWebhookToken, 'Invalid Webhook Token');
    if (params.applicationId !== this.applicationId) {
      throw new DiscordApiError(404, Codes.UnknownWebhook, 'Unknown Webhook');
    }
    return interaction;
  }

  private webhookMessage(request: RestRequest): StoredMessage {
    const interaction = this.webhookInteraction(request);
    const id = request.params.messageId === '@original' ? interaction.originalId : request.params.messageId;
    const stored = this.store.get(interaction.channelId)?.get(id ?? '');
    if (!stored || stored.deleted || !stored.fromBot) throw unknownMessage();
    return stored;
  }

  private editWebhookMessage(request: RestRequest): ApiMessage {
    return this.applyEdit(this.webhookMessage(request), request.body);
  }

  private deleteWebhookMessage(request: RestRequest): Answer {
    this.remove(this.webhookMessage(request));
    return NO_CONTENT;
  }

  private followUp(request: RestRequest): ApiMessage {
    const interaction = this.webhookInteraction(request);
    if (interaction.answeredWith === undefined) throw unknownMessage();
    return this.interactionReply(
      interaction,
      shown(messageFields(request.body)),
      request.body.allowed_mentions,
    );
  }

  // ---- pushing events

  private channelForPush(options: PushMessageOptions): ApiChannel {
    const known = this.channels.get(options.channelId);
    const guildId = options.guildId ?? known?.guild_id;
    if (known && known.guild_id !== guildId) {
      throw new Error(`pushMessage: channel ${options.channelId} is not in guild ${options.guildId}`);
    }
    if (guildId !== undefined && guildId !== this.guildId) {
      throw new Error(`pushMessage: the fake has one guild, ${this.guildId}, not ${guildId}`);
    }
    const channel = known ?? this.newChannel(options, guildId);
    return options.threadId === undefined
      ? channel
      : this.thread(channel, options.threadId, options.authorId);
  }

  /** A guild channel the client has not heard of is announced first; a DM channel never is. */
  private newChannel(options: PushMessageOptions, guildId: string | undefined): ApiChannel {
    const author = this.rememberUser(options.authorId, options.authorName);
    const channel = guildId
      ? guildTextChannel(options.channelId, 'more')
      : dmChannel(options.channelId, author);
    this.channels.set(channel.id, channel);
    if (guildId) this.dispatch('CHANNEL_CREATE', channel, Intent.Guilds);
    return channel;
  }

  private thread(parent: ApiChannel, threadId: string, ownerId: string): ApiChannel {
    if (parent.guild_id === undefined) throw new Error('pushMessage: a DM has no threads');
    const known = this.channels.get(threadId);
    if (known) return known;
    const thread = threadChannel(threadId, parent, ownerId);
    this.channels.set(threadId, thread);
    this.dispatch('THREAD_CREATE', { ...thread, newly_created: true }, Intent.Guilds);
    return thread;
  }

  private pushInteraction(
    type: number,
    options: { channelId: string; userId: string },
    data: Json,
    messageId: string | undefined,
  ): PushedInteraction {
    const channel = this.channels.get(options.channelId);
    if (!channel) throw new Error(`push: the fake knows no channel ${options.channelId}`);
    const user = this.rememberUser(options.userId);
    const message = messageId === undefined ? undefined : this.store.get(channel.id)?.get(messageId)?.message;
    if (messageId !== undefined && !message)
      throw new Error(`push: channel ${channel.id} has no message ${messageId}`);
    const id = this.nextId();
    const token = `fake-interaction-token.${id}.${randomBytes(12).toString('base64url')}`;
    this.interactions.set(id, {
      id,
      token,
      type,
      channelId: channel.id,
      user,
      messageId,
      createdAt: Date.now(),
    });
    const payload = this.interactionPayload({ id, token, type, data, channel, user, message });
    return { interactionId: id, token, seq: this.dispatch('INTERACTION_CREATE', payload) };
  }

  private interactionPayload(parts: {
    id: string;
    token: string;
    type: number;
    data: Json;
    channel: ApiChannel;
    user: DiscordUser;
    message?: ApiMessage;
  }): Json {
    const { channel, user } = parts;
    const guildId = channel.guild_id;
    return compact({
      id: parts.id,
      application_id: this.applicationId,
      type: parts.type,
      data: parts.data,
      token: parts.token,
      version: 1,
      guild_id: guildId,
      guild: guildId ? { id: guildId, locale: 'en-US', features: [] } : undefined,
      channel_id: channel.id,
      channel: guildId ? { ...channel, permissions: BOT_PERMISSIONS } : channel,
      member: guildId ? { ...memberOf(), user, permissions: BOT_PERMISSIONS } : undefined,
      user: guildId ? undefined : user,
      // A snapshot: later edits must not change an event already sent.
      message: parts.message && structuredClone(parts.message),
      app_permissions: BOT_PERMISSIONS,
      locale: 'en-US',
      guild_locale: guildId ? 'en-US' : undefined,
      entitlements: [],
      authorizing_integration_owners: guildId ? { '0': guildId } : { '1': user.id },
      context: guildId ? 0 : 1,
      attachment_size_limit: 10_485_760,
    });
  }

  private rememberUser(id: string, name?: string): DiscordUser {
    const known = this.users.get(id);
    if (known && (name === undefined || known.username === name)) return known;
    const username = name ?? `user${id.slice(-4)}`;
    const user: DiscordUser = { id, username, global_name: username, discriminator: '0', avatar: null };
    this.users.set(id, user);
    return user;
  }

  /** A snowflake: milliseconds since Discord's epoch, shifted, kept strictly increasing. */
  private nextId(): string {
    const fromClock = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
    this.lastId = fromClock > this.lastId ? fromClock : this.lastId + 1n;
    return String(this.lastId);
  }

  // ---- gateway

  private onConnection(socket: WebSocket, request: IncomingMessage): void {
    const url = new URL(request.url ?? '/', this.restUrl);
    const query = Object.fromEntries(url.searchParams);
    this.connectionLog.push({ path: url.pathname, query, at: Date.now() });
    const peer: Peer = { socket, authenticated: false };
    this.peers.add(peer);
    socket.on('message', (data, isBinary) => this.onGatewayMessage(peer, data, isBinary));
    socket.on('close', (code) => this.onGatewayClose(peer, code));
    if (query.v !== '10' || (query.encoding ?? 'json') !== 'json') return closeWith(socket, 4012);
    send(socket, { op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
  }

  private onGatewayMessage(peer: Peer, data: RawData, isBinary: boolean): void {
    const payload = isBinary ? undefined : parseJson(String(data));
    if (!isObject(payload)) return closeWith(peer.socket, 4002);
    const d = isObject(payload.d) ? payload.d : {};
    switch (payload.op) {
      case Op.Heartbeat:
        this.heartbeatCount += 1;
        return send(peer.socket, { op: 11 });
      case Op.Identify:
        return this.identify(peer, d);
      case Op.Resume:
        return this.resume(peer, d);
      case Op.Presence:
      case Op.Voice:
      case Op.Members:
        return peer.authenticated ? undefined : closeWith(peer.socket, 4003);
      default:
        return closeWith(peer.socket, 4001);
    }
  }

  /** A client's own 1000/1001 close ends its session; any other way of losing the socket keeps it resumable. */
  private onGatewayClose(peer: Peer, code: number): void {
    this.peers.delete(peer);
    const session = this.session;
    if (!session || session.socket !== peer.socket) return;
    session.socket = undefined;
    if (code === 1000 || code === 1001) this.session = undefined;
  }

  private identify(peer: Peer, d: Json): void {
    if (peer.authenticated) return closeWith(peer.socket, 4005);
    const failure = this.identifyFailures.shift();
    if (failure !== undefined) return closeWith(peer.socket, failure);
    if (d.token !== this.token) return closeWith(peer.socket, 4004);
    if (!Number.isInteger(d.intents)) return closeWith(peer.socket, 4013);
    const shard = d.shard as [number, number] | undefined;
    if (shard !== undefined && (shard[0] !== 0 || shard[1] !== 1)) return closeWith(peer.socket, 4010);
    const properties = isObject(d.properties) ? d.properties : {};
    this.identifyLog.push(
      compact({
        token: d.token,
        intents: d.intents as number,
        properties,
        shard,
        compress: d.compress === true,
        at: Date.now(),
      }),
    );
    this.sessionStarts -= 1;
    // One session at a time: a new IDENTIFY replaces any earlier one.
    this.session = {
      id: randomBytes(16).toString('hex'),
      intents: d.intents as number,
      seq: 0,
      log: [],
      socket: peer.socket,
    };
    peer.authenticated = true;
    this.dispatch('READY', this.readyPayload(this.session.id));
    this.dispatch('GUILD_CREATE', this.guildPayload(), Intent.Guilds);
  }

  private resume(peer: Peer, d: Json): void {
    if (peer.authenticated) return closeWith(peer.socket, 4005);
    if (d.token !== this.token) return closeWith(peer.socket, 4004);
    const session = this.session;
    if (!session || session.id !== d.session_id)
      return send(peer.socket, { op: 9, d: false, s: null, t: null });
    const seq = Number(d.seq);
    if (!Number.isInteger(seq) || seq > session.seq) return closeWith(peer.socket, 4007);
    const from = Math.min(seq, session.replayAfter ?? seq);
    session.replayAfter = undefined;
    // A session lives on one connection: resuming it elsewhere ends the old one, as in Discord.
    session.socket?.terminate();
    session.socket = peer.socket;
    peer.authenticated = true;
    const missed = session.log.filter((entry) => entry.s > from);
    for (const entry of missed) send(peer.socket, entry);
    this.resumeLog.push({
      sessionId: session.id,
      seq,
      replayed: missed.map((entry) => entry.s),
      at: Date.now(),
    });
    this.dispatch('RESUMED', {});
  }

  private readyPayload(sessionId: string): Json {
    return {
      v: 10,
      user: { ...this.botUser, verified: true, mfa_enabled: false, flags: 0, email: null },
      guilds: [{ id: this.guildId, unavailable: true }],
      session_id: sessionId,
      session_type: 'normal',
      resume_gateway_url: `${this.gatewayUrl}${RESUME_PATH}`,
      shard: [0, 1],
      application: { id: this.applicationId, flags: 0 },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      user_settings: {},
    };
  }

  private guildPayload(): Json {
    const channels = [...this.channels.values()].filter((channel) => channel.guild_id === this.guildId);
    return {
      id: this.guildId,
      name: 'Cairn test guild',
      icon: null,
      owner_id: '100000000000000001',
      unavailable: false,
      large: false,
      member_count: 2,
      joined_at: new Date(0).toISOString(),
      features: [],
      preferred_locale: 'en-US',
      premium_tier: 0,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      system_channel_id: null,
      afk_channel_id: null,
      afk_timeout: 300,
      roles: [everyoneRole(this.guildId)],
      emojis: [],
      stickers: [],
      channels: channels.filter((channel) => channel.type !== ChannelType.PublicThread),
      threads: channels.filter((channel) => channel.type === ChannelType.PublicThread),
      members: [{ ...memberOf(), user: this.botUser }],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }
}

// ---- Discord objects

function botIdOf(token: string): string {
  const decoded = Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8');
  return /^\d{17,20}$/.test(decoded) ? decoded : DEFAULT_BOT_ID;
}

function guildTextChannel(id: string, name: string): ApiChannel {
  return {
    id,
    type: ChannelType.GuildText,
    guild_id: GUILD_ID,
    name,
    position: 0,
    permission_overwrites: [],
    nsfw: false,
    parent_id: null,
    topic: null,
    last_message_id: null,
    rate_limit_per_user: 0,
  };
}

function dmChannel(id: string, recipient: DiscordUser): ApiChannel {
  return { id, type: ChannelType.DM, recipients: [recipient], last_message_id: null, flags: 0 };
}

function dmRecipient(channel: ApiChannel): DiscordUser | undefined {
  return channel.type === ChannelType.DM ? (channel.recipients as DiscordUser[])[0] : undefined;
}

function threadChannel(id: string, parent: ApiChannel, ownerId: string): ApiChannel {
  return {
    id,
    type: ChannelType.PublicThread,
    guild_id: parent.guild_id,
    parent_id: parent.id,
    owner_id: ownerId,
    name: `thread ${id.slice(-4)}`,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    flags: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
    },
  };
}

function everyoneRole(guildId: string): Json {
  return {
    id: guildId,
    name: '@everyone',
    permissions: BOT_PERMISSIONS,
    position: 0,
    color: 0,
    hoist: false,
    managed: false,
    mentionable: false,
    flags: 0,
  };
}

/** A guild member without its user, as MESSAGE_CREATE carries it. */
function memberOf(): Json {
  return {
    roles: [],
    joined_at: new Date(0).toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    nick: null,
    avatar: null,
  };
}

function messageIntent(guildId: string | undefined): number {
  return guildId ? Intent.GuildMessages : Intent.DirectMessages;
}

function botMessageOf({ message, edits, history }: StoredMessage): BotMessage {
  const reference = message.message_reference as { message_id?: string } | undefined;
  return compact({
    id: message.id,
    channelId: message.channel_id,
    content: message.content,
    embeds: message.embeds,
    components: message.components,
    flags: message.flags,
    replyTo: reference?.message_id,
    pings: {
      users: (message.mentions as DiscordUser[]).map((user) => user.id),
      roles: message.mention_roles as string[],
      everyone: message.mention_everyone as boolean,
    },
    edits,
    history: [...history],
  });
}

function callbackResponse(interaction: OpenInteraction, type: number, message: ApiMessage | undefined): Json {
  const shows = message && (type === Callback.Message || type === Callback.DeferredMessage);
  return {
    interaction: compact({
      id: interaction.id,
      type: interaction.type,
      response_message_id: message?.id,
      response_message_loading: shows ? type === Callback.DeferredMessage : undefined,
      response_message_ephemeral: shows ? (message.flags & MessageFlag.Ephemeral) !== 0 : undefined,
    }),
    resource: compact({
      type,
      message: type === Callback.Modal || type === Callback.DeferredUpdate ? undefined : message,
    }),
  };
}

// ---- validation, as Discord answers it

/** Discord's 50035 `errors` tree: each offending field's path holds `_errors: [{code, message}]`. */
class FormErrors {
  private readonly tree: Json = {};

  add(path: (string | number)[], code: string, message: string): this {
    let node = this.tree;
    for (const key of path) node = (node[String(key)] ??= {}) as Json;
    ((node._errors ??= []) as object[]).push({ code, message });
    return this;
  }

  toError(): DiscordApiError {
    return new DiscordApiError(400, Codes.InvalidFormBody, 'Invalid Form Body', this.tree);
  }

  throwIfAny(): void {
    if (Object.keys(this.tree).length > 0) throw this.toError();
  }
}

function formError(path: (string | number)[], code: string, message: string): DiscordApiError {
  return new FormErrors().add(path, code, message).toError();
}

const tooLong = (max: number): [string, string] => [
  'BASE_TYPE_MAX_LENGTH',
  `Must be ${max} or fewer in length.`,
];

interface MessageFields {
  /** null clears the field in an edit. */
  content?: string | null;
  embeds?: unknown[] | null;
  components?: unknown[] | null;
  flags?: number;
}

/** The message fields of a create, edit or callback body, refused as Discord refuses them. */
function messageFields(body: Json): MessageFields {
  const errors = new FormErrors();
  const { content, embeds, components, flags } = body;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    errors.add(['content'], 'BASE_TYPE_STRING', 'Must be a string.');
  } else if (typeof content === 'string' && content.length > MAX_CONTENT) {
    errors.add(['content'], ...tooLong(MAX_CONTENT));
  }
  checkEmbeds(embeds, errors);
  checkComponents(components, typeof flags === 'number' ? flags : 0, errors);
  errors.throwIfAny();
  return compact({
    content: content as string | null | undefined,
    embeds: embeds as unknown[] | null | undefined,
    components: components as unknown[] | null | undefined,
    flags: typeof flags === 'number' ? flags : undefined,
  });
}

function checkEmbeds(embeds: unknown, errors: FormErrors): void {
  if (embeds === undefined || embeds === null) return;
  if (!Array.isArray(embeds)) return void errors.add(['embeds'], 'BASE_TYPE_ARRAY', 'Must be an array.');
  if (embeds.length > MAX_EMBEDS) errors.add(['embeds'], ...tooLong(MAX_EMBEDS));
  embeds.forEach((embed: unknown, index) => {
    if (!isObject(embed)) return;
    if (typeof embed.title === 'string' && embed.title.length > 256)
      errors.add(['embeds', index, 'title'], ...tooLong(256));
    if (typeof embed.description === 'string' && embed.description.length > 4096) {
      errors.add(['embeds', index, 'description'], ...tooLong(4096));
    }
  });
}

/** Rows of at most five, custom ids of 1-100 characters, unique in the message; labels up to 80. */
function checkComponents(components: unknown, flags: number, errors: FormErrors): void {
  if (components === undefined || components === null) return;
  if (!Array.isArray(components))
    return void errors.add(['components'], 'BASE_TYPE_ARRAY', 'Must be an array.');
  const layoutV2 = (flags & MessageFlag.IsComponentsV2) !== 0;
  if (!layoutV2 && components.length > MAX_ROWS) errors.add(['components'], ...tooLong(MAX_ROWS));
  const seen = new Set<string>();
  const visit = (component: unknown, path: (string | number)[]): void => {
    if (!isObject(component)) return;
    checkComponent(component, path, seen, errors);
    const children = Array.isArray(component.components) ? component.components : [];
    if (!layoutV2 && component.type === ComponentType.Row && children.length > 5)
      errors.add([...path, 'components'], ...tooLong(5));
    children.forEach((child: unknown, index) => visit(child, [...path, 'components', index]));
    if (isObject(component.accessory)) visit(component.accessory, [...path, 'accessory']);
  };
  components.forEach((component: unknown, index) => visit(component, ['components', index]));
}

function checkComponent(
  component: Json,
  path: (string | number)[],
  seen: Set<string>,
  errors: FormErrors,
): void {
  const { custom_id: customId, label, type, style } = component;
  if (type === ComponentType.Button && typeof label === 'string' && label.length > MAX_BUTTON_LABEL) {
    errors.add([...path, 'label'], ...tooLong(MAX_BUTTON_LABEL));
  }
  if (
    type === ComponentType.Button &&
    style !== LINK_BUTTON_STYLE &&
    typeof customId !== 'string' &&
    component.sku_id === undefined
  ) {
    errors.add([...path, 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  if (typeof customId !== 'string') return;
  if (customId.length === 0 || customId.length > MAX_CUSTOM_ID) {
    errors.add(
      [...path, 'custom_id'],
      'BASE_TYPE_BAD_LENGTH',
      `Must be between 1 and ${MAX_CUSTOM_ID} in length.`,
    );
  }
  if (seen.has(customId)) {
    errors.add(
      [...path, 'custom_id'],
      'COMPONENT_CUSTOM_ID_DUPLICATED',
      'Component custom id cannot be duplicated',
    );
  }
  seen.add(customId);
}

interface AllowedMentions {
  parse: string[];
  users?: string[];
  roles?: string[];
  replied_user: boolean;
}

/** allowed_mentions as Discord reads it; naming a kind in `parse` and listing ids of it is refused. */
function parseAllowedMentions(value: unknown): AllowedMentions | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value))
    throw formError(
      ['allowed_mentions'],
      'MODEL_TYPE_CONVERT',
      'Only dictionaries may be used in a ModelType',
    );
  const parse = Array.isArray(value.parse) ? value.parse.map(String) : [];
  const errors = new FormErrors();
  parse.forEach((kind, index) => {
    if (!['users', 'roles', 'everyone'].includes(kind)) {
      errors.add(
        ['allowed_mentions', 'parse', index],
        'BASE_TYPE_CHOICES',
        'Value must be one of {"roles", "users", "everyone"}.',
      );
    }
  });
  for (const kind of ['users', 'roles'] as const) {
    if (Array.isArray(value[kind]) && parse.includes(kind)) {
      errors.add(
        ['allowed_mentions'],
        'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
      );
    }
  }
  errors.throwIfAny();
  return compact({
    parse,
    users: Array.isArray(value.users) ? value.users.map(String) : undefined,
    roles: Array.isArray(value.roles) ? value.roles.map(String) : undefined,
    replied_user: value.replied_user === true,
  });
}

/** The fields a new message shows: what was given, nothing for what was not. */
function shown(fields: MessageFields): Json {
  return {
    ...fields,
    content: fields.content ?? '',
    embeds: fields.embeds ?? [],
    components: numbered(fields.components ?? []),
  };
}

/**
 * Components as Discord stores them: each without an `id` gets the next free one, counting from 1 in
 * document order (a row before its children) and skipping ids the message already uses.
 */
function numbered(components: unknown[]): unknown[] {
  const used = new Set<number>();
  const collect = (component: unknown): void => {
    if (!isObject(component)) return;
    if (typeof component.id === 'number') used.add(component.id);
    childrenOf(component).forEach(collect);
  };
  components.forEach(collect);
  let next = 1;
  const fill = (component: unknown): unknown => {
    if (!isObject(component)) return component;
    const copy: Json = { ...component };
    if (typeof copy.id !== 'number') {
      while (used.has(next)) next++;
      copy.id = next++;
    }
    if (Array.isArray(copy.components)) copy.components = copy.components.map(fill);
    if (isObject(copy.accessory)) copy.accessory = fill(copy.accessory);
    return copy;
  };
  return components.map(fill);
}

function childrenOf(component: Json): unknown[] {
  return [
    ...(Array.isArray(component.components) ? component.components : []),
    ...(isObject(component.accessory) ? [component.accessory] : []),
  ];
}

function isEmpty(message: ApiMessage): boolean {
  return message.content.trim() === '' && message.embeds.length === 0 && message.components.length === 0;
}

function hasAttachments(body: Json): boolean {
  const listed = (value: unknown) => Array.isArray(value) && value.length > 0;
  return listed(body.attachments) || listed(body.sticker_ids) || isObject(body.poll);
}

function findComponent(components: unknown[], customId: string): Json | undefined {
  for (const component of components) {
    if (!isObject(component)) continue;
    if (component.custom_id === customId) return component;
    const found = findComponent(childrenOf(component), customId);
    if (found) return found;
  }
  return undefined;
}

// ---- modal submissions

/** The submission of a modal the bot showed: its layout (action rows or labels), with the values filled in. */
function mirrorModal(modal: Json, values: Record<string, string | string[]>): Json[] {
  const unused = new Set(Object.keys(values));
  let nextId = 1;
  const filled = (input: Json): Json => {
    const id = input.custom_id as string;
    unused.delete(id);
    const value = values[id];
    const answer = Array.isArray(value) ? { values: value } : { value: value ?? '' };
    return { type: input.type, id: input.id ?? nextId++, custom_id: id, ...answer };
  };
  const submitted = (modal.components as unknown[]).filter(isObject).flatMap((component): Json[] => {
    const id = component.id ?? nextId++;
    if (component.type === ComponentType.Label && isObject(component.component)) {
      return [{ type: ComponentType.Label, id, component: filled(component.component) }];
    }
    const inputs = (Array.isArray(component.components) ? component.components : []).filter(isObject);
    return component.type === ComponentType.Row
      ? [{ type: ComponentType.Row, id, components: inputs.map(filled) }]
      : [];
  });
  if (unused.size > 0)
    throw new Error(
      `pushModalSubmit: the modal ${String(modal.custom_id)} has no field ${[...unused].join(', ')}`,
    );
  return submitted;
}

/** Without a modal to mirror: one action row per text input, the legacy layout. */
function rowsOf(values: Record<string, string | string[]>): Json[] {
  return Object.entries(values).map(([customId, value], index) => ({
    type: ComponentType.Row,
    id: index * 2 + 1,
    components: [
      { type: ComponentType.TextInput, id: index * 2 + 2, custom_id: customId, value: String(value) },
    ],
  }));
}

// ---- plumbing

function rateLimitHeaders(
  route: string,
  remaining: number,
  resetAfterSeconds: number,
): Record<string, string> {
  return {
    'X-RateLimit-Bucket': createHash('sha1').update(route).digest('hex').slice(0, 32),
    'X-RateLimit-Limit': '5',
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': ((Date.now() + resetAfterSeconds * 1000) / 1000).toFixed(3),
    'X-RateLimit-Reset-After': resetAfterSeconds.toFixed(3),
  };
}

/** `POST /channels/:id/messages` matches any channel; `POST /channels/222/messages` only that one. */
function routeMatches(wanted: string, template: string, concrete: string): boolean {
  const generic = (route: string) => route.replace(/:\w+/g, ':');
  return wanted === concrete || generic(wanted) === generic(template);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new DiscordApiError(400, 0, 'The fake Discord API takes JSON bodies only');
  }
  const parsed = parseJson(text);
  if (parsed === undefined) throw new DiscordApiError(400, 50109, 'The request body contains invalid JSON.');
  return parsed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function send(socket: WebSocket, payload: object): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
}

function closeWith(socket: WebSocket, code: number): void {
  socket.close(code, CLOSE_REASONS[code] ?? 'Unknown error.');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object without its undefined fields, as Discord leaves absent optional fields out. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
