/**
 * A fake of Slack for tests of apps built with the real @slack/bolt SDK in Socket Mode. It speaks the
 * real protocols on loopback: the Web API (`POST /api/<method>`, form-encoded or JSON, the token as a
 * Bearer header or a `token` parameter, answered with HTTP 200 and `{ok: true, ...}` or
 * `{ok: false, error}`, HTTP 429 with Retry-After when rate limited) and Socket Mode (apps.connections.open
 * hands out a one-time `ws://` URL; the server says `hello`, then sends envelopes that the app acks with
 * `{envelope_id, payload}`). It keeps what an app can observe (its messages, views, acks) and refuses bad
 * calls with Slack's error codes, so the SDK's own error handling runs as it would against Slack.
 *
 * Where it differs from Slack, it is stricter or faster, never more lenient:
 * - channels are ids only (C…, D…, G…): a user id or a #name as a channel is `channel_not_found`;
 * - a trigger_id opens one view, within 3 seconds of the interaction that issued it;
 * - a socket URL works once: a reconnecting client must call apps.connections.open again, as Bolt does;
 * - it never re-sends an unacked envelope by itself: a test calls `resend`, so no timer runs behind it;
 * - Slack also sends a `message` event for an @mention in a channel; `pushMention` sends the app_mention
 *   only, and the bot's own posts are not echoed back as events.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

export interface FakeSlackOptions {
  /** Defaults to `xoxb-test`. */
  botToken?: string;
  /** The app-level token Socket Mode connects with; defaults to `xapp-test`. */
  appToken?: string;
}

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the call carried (Bearer header, else `token` parameter). */
  token?: string;
  /** Date.now() when the call arrived. */
  at: number;
}

/** A bot message as it stands now. */
export interface BotMessage {
  ts: string;
  text: string;
  blocks?: object[];
  threadTs?: string;
  edits: number;
  /** Every text the message has had, oldest first, the current one last. */
  history: string[];
}

export interface EphemeralMessage {
  user: string;
  text: string;
  blocks?: object[];
  threadTs?: string;
}

export interface OpenedView {
  id: string;
  triggerId: string;
  /** The view as views.open returned it. */
  view: Record<string, unknown>;
}

/** A post to a response_url the fake handed out with an interaction. */
export interface ActionResponse {
  channel: string;
  messageTs: string;
  body: Record<string, unknown>;
}

/** One envelope sent over the socket. */
export interface Delivery {
  envelopeId: string;
  type: 'events_api' | 'interactive' | 'slash_commands';
  eventId?: string;
  retryAttempt: number;
  sentAt: number;
  ackedAt?: number;
  /** The `payload` of the ack: `{}` unless the app answered with something (e.g. a view's errors). */
  ackPayload?: Record<string, unknown>;
}

/** Slack's answer to too many calls: HTTP 429, `Retry-After: seconds`, `{ok: false, error: 'ratelimited'}`. */
export interface RateLimitFault {
  status: 429;
  retryAfterSeconds: number;
}

/** Any other answer, e.g. `{status: 200, body: {ok: false, error: 'channel_not_found'}}`. */
export interface BodyFault {
  status: number;
  body: object;
}

export type FaultAnswer = RateLimitFault | BodyFault;

export interface PushMessageOptions {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
  /** Defaults to 'im' for a D… channel, 'group' for G…, else 'channel'. */
  channelType?: 'im' | 'channel' | 'group';
}

export interface PushMentionOptions {
  channel: string;
  user: string;
  /** `<@botUserId> ` is put in front unless the text mentions the bot already. */
  text: string;
  threadTs?: string;
}

export interface PushButtonOptions {
  channel: string;
  user: string;
  /** A bot message of that channel whose blocks hold a button with this action_id. */
  messageTs: string;
  actionId: string;
  /** When given, must be the button's value: a test that presses a button the bot never sent fails. */
  value?: string;
}

export interface PushViewSubmissionOptions {
  user: string;
  /** A view opened through views.open. */
  viewId: string;
  /** `state.values` as Slack sends it: block_id → action_id → `{type, value}`. */
  values: Record<string, Record<string, object>>;
}

export interface PushSlashCommandOptions {
  /** As configured in the app, e.g. `/cairn`. */
  command: string;
  /** What the user typed after the command. */
  text: string;
  channel: string;
  user: string;
}

export interface PushedMessage {
  eventId: string;
  ts: string;
}

type Predicate<T> = () => T | undefined | false | null;

export interface FakeSlack {
  /** What WebClient's `slackApiUrl` takes: `http://127.0.0.1:PORT/api/`. */
  readonly apiUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly appId: string;
  /** Every Web API call in order, refused and faulted ones included. */
  readonly calls: RecordedCall[];
  /** Calls of one method. */
  callsOf(method: string): RecordedCall[];
  /** The bot's messages in a channel, oldest first, deleted ones left out. */
  messages(channel: string): BotMessage[];
  ephemerals(channel: string): EphemeralMessage[];
  /** Views opened with views.open, in order. */
  readonly views: OpenedView[];
  /** Posts to response_urls, in order. */
  readonly responses: ActionResponse[];
  /** The next `times` calls of `method` get this answer instead of their own. */
  failNext(method: string, answer: FaultAnswer, times?: number): void;

  /** Open Socket Mode connections (hello sent, not closed). */
  readonly connections: number;
  /** Every Socket Mode connection accepted so far, closed ones included. */
  readonly connectionsOpened: number;
  waitForConnection(timeoutMs?: number): Promise<void>;
  /** Wraps an Events API event in an event_callback and an events_api envelope; returns the event_id. */
  pushEvent(event: object, options?: { retryAttempt?: number }): string;
  /** A `message` event from a user; the message is kept, so a bot's reply can be threaded on it. */
  pushMessage(options: PushMessageOptions): PushedMessage;
  /** An `app_mention` event. */
  pushMention(options: PushMentionOptions): PushedMessage;
  /** A `block_actions` interaction on a bot message's button; returns the envelope_id. */
  pushButton(options: PushButtonOptions): string;
  /** A `view_submission` of a view opened through views.open; returns the envelope_id. */
  pushViewSubmission(options: PushViewSubmissionOptions): string;
  /** Any interactive payload, in an `interactive` envelope; returns the envelope_id. */
  pushInteraction(payload: object): string;
  /** A slash command the user ran in a channel, in a `slash_commands` envelope; returns the envelope_id. */
  pushSlashCommand(options: PushSlashCommandOptions): string;
  /**
   * Delivers an event again in a new envelope, with retry_attempt (default: last attempt + 1) and
   * retry_reason 'timeout', as Slack does when an envelope is not acked within 3 seconds. Returns the
   * new envelope_id.
   */
  resend(eventId: string, retryAttempt?: number): string;
  /** Sends `{type: 'disconnect', reason}` on every open connection, as Slack does before recycling one. */
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;

  /** envelope_id → Date.now() of its first ack. */
  readonly acks: Map<string, number>;
  /** Milliseconds from sending an envelope to its ack; undefined while unacked. */
  ackDelayMs(envelopeId: string): number | undefined;
  /** Envelope ids sent and not acked, in sending order. */
  unacked(): string[];
  /** Every delivery of an event, first one first. */
  deliveries(eventId: string): Delivery[];
  delivery(envelopeId: string): Delivery | undefined;

  /** Polls `predicate` every 20 ms until it gives a value (not undefined, false or null). */
  waitFor<T>(predicate: Predicate<T>, what?: string, timeoutMs?: number): Promise<T>;
  /** Closes every connection, sockets included, and the server. */
  close(): Promise<void>;
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const fake = new FakeSlackServer(options.botToken ?? 'xoxb-test', options.appToken ?? 'xapp-test');
  await fake.listen();
  return fake;
}

/** A refusal, thrown by a method and answered as `{ok: false, error, ...details}` with HTTP 200. */
export class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(error);
  }

  get body(): object {
    return { ok: false, error: this.error, ...this.details };
  }
}

const MAX_TEXT_LENGTH = 40_000;
const MAX_MESSAGE_BLOCKS = 50;
const MAX_VIEW_BLOCKS = 100;
const TRIGGER_LIFETIME_MS = 3_000;
const CLOSE_GRACE_MS = 1_000;
const FIRST_TS_SECONDS = 1_700_000_000;
const BLOCK_TYPES = new Set([
  'actions',
  'context',
  'divider',
  'file',
  'header',
  'image',
  'input',
  'markdown',
  'rich_text',
  'section',
  'table',
  'video',
]);

type Params = Record<string, unknown>;
type TokenKind = 'bot' | 'app';

interface MethodHandler {
  token: TokenKind;
  run(params: Params): object;
}

interface StoredMessage {
  ts: string;
  user: string;
  fromBot: boolean;
  text: string;
  blocks?: object[];
  threadTs?: string;
  edits: number;
  /** The ts of the last edit, which Slack shows in `edited`. */
  editedTs?: string;
  history: string[];
}

interface ChannelState {
  type: 'im' | 'channel' | 'group';
  /** For an im: the user on the other side. */
  user?: string;
  messages: Map<string, StoredMessage>;
  ephemerals: EphemeralMessage[];
}

interface ResponseTarget {
  channel: string;
  messageTs: string;
  user: string;
}

class FakeSlackServer implements FakeSlack {
  apiUrl = '';
  readonly botUserId = 'U0BOT';
  readonly botId = 'B0BOT';
  readonly teamId = 'T0TEST';
  readonly appId = 'A0TEST';
  readonly acks = new Map<string, number>();
  private root = '';
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets: WebSocket[] = [];
  private readonly log: RecordedCall[] = [];
  private readonly faults = new Map<string, FaultAnswer[]>();
  private readonly channels = new Map<string, ChannelState>();
  private readonly openedViews: OpenedView[] = [];
  private readonly responsePosts: ActionResponse[] = [];
  private readonly tickets = new Set<string>();
  private readonly triggers = new Map<string, number>();
  private readonly responseUrls = new Map<string, ResponseTarget>();
  private readonly events = new Map<string, object>();
  private readonly sent = new Map<string, Delivery>();
  private lastTsMicros = 0;
  private lastEventNumber = 0;
  private lastViewNumber = 0;
  private opened = 0;
  private closing: Promise<void> | undefined;

  private readonly methods = new Map<string, MethodHandler>([
    ['auth.test', { token: 'bot', run: () => this.authTest() }],
    ['apps.connections.open', { token: 'app', run: () => this.openConnection() }],
    ['chat.postMessage', { token: 'bot', run: (params) => this.postMessage(params) }],
    ['chat.update', { token: 'bot', run: (params) => this.updateMessage(params) }],
    ['chat.postEphemeral', { token: 'bot', run: (params) => this.postEphemeral(params) }],
    ['conversations.info', { token: 'bot', run: (params) => this.conversationInfo(params) }],
    ['users.info', { token: 'bot', run: (params) => this.userInfo(params) }],
    ['views.open', { token: 'bot', run: (params) => this.openView(params) }],
  ]);

  constructor(
    readonly botToken: string,
    readonly appToken: string,
  ) {
    this.server.on('upgrade', (request, socket, head) => this.upgrade(request, socket, head));
  }

  async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server.once('listening', resolve));
    this.root = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.apiUrl = `${this.root}/api/`;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  // ---- test controls and inspection

  get calls(): RecordedCall[] {
    return [...this.log];
  }

  get views(): OpenedView[] {
    return [...this.openedViews];
  }

  get responses(): ActionResponse[] {
    return [...this.responsePosts];
  }

  get connections(): number {
    return this.sockets.length;
  }

  get connectionsOpened(): number {
    return this.opened;
  }

  callsOf(method: string): RecordedCall[] {
    return this.log.filter((call) => call.method === method);
  }

  messages(channel: string): BotMessage[] {
    const stored = [...(this.channels.get(channel)?.messages.values() ?? [])];
    return stored
      .filter((message) => message.fromBot)
      .map(({ ts, text, blocks, threadTs, edits, history }) =>
        compact({ ts, text, blocks, threadTs, edits, history: [...history] }),
      );
  }

  ephemerals(channel: string): EphemeralMessage[] {
    return [...(this.channels.get(channel)?.ephemerals ?? [])];
  }

  failNext(method: string, answer: FaultAnswer, times = 1): void {
    const queue = this.faults.get(method) ?? [];
    queue.push(...Array.from({ length: times }, () => answer));
    this.faults.set(method, queue);
  }

  async waitForConnection(timeoutMs = 10_000): Promise<void> {
    await this.waitFor(() => this.sockets.length > 0, 'a Socket Mode connection', timeoutMs);
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

  ackDelayMs(envelopeId: string): number | undefined {
    const delivery = this.sent.get(envelopeId);
    return delivery?.ackedAt === undefined ? undefined : delivery.ackedAt - delivery.sentAt;
  }

  unacked(): string[] {
    return [...this.sent.values()].filter((d) => d.ackedAt === undefined).map((d) => d.envelopeId);
  }

  deliveries(eventId: string): Delivery[] {
    return [...this.sent.values()].filter((d) => d.eventId === eventId).map((d) => ({ ...d }));
  }

  delivery(envelopeId: string): Delivery | undefined {
    const found = this.sent.get(envelopeId);
    return found && { ...found };
  }

  // ---- pushing events and interactions

  pushEvent(event: object, options: { retryAttempt?: number } = {}): string {
    this.lastEventNumber += 1;
    const eventId = `Ev0FAKE${String(this.lastEventNumber).padStart(6, '0')}`;
    const body = {
      token: 'fake-verification-token',
      team_id: this.teamId,
      context_team_id: this.teamId,
      context_enterprise_id: null,
      api_app_id: this.appId,
      event,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: this.teamId,
          user_id: this.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${Buffer.from(eventId).toString('base64url')}`,
    };
    this.events.set(eventId, body);
    const retryAttempt = options.retryAttempt ?? 0;
    this.deliver('events_api', body, {
      eventId,
      retryAttempt,
      retryReason: retryAttempt > 0 ? 'timeout' : '',
    });
    return eventId;
  }

  pushMessage(options: PushMessageOptions): PushedMessage {
    const { channel, user, text, threadTs } = options;
    const state = this.channelState(channel, options.channelType);
    if (state.type === 'im') state.user ??= user;
    const ts = this.userMessage(state, user, text, threadTs);
    const eventId = this.pushEvent(
      compact({
        type: 'message',
        user,
        text,
        ts,
        event_ts: ts,
        thread_ts: threadTs,
        channel,
        channel_type: state.type,
        team: this.teamId,
        client_msg_id: randomUUID(),
        blocks: richTextBlocks(text),
      }),
    );
    return { eventId, ts };
  }

  pushMention(options: PushMentionOptions): PushedMessage {
    const { channel, user, threadTs } = options;
    const mention = `<@${this.botUserId}>`;
    const text = options.text.includes(mention) ? options.text : `${mention} ${options.text}`;
    const ts = this.userMessage(this.channelState(channel), user, text, threadTs);
    const eventId = this.pushEvent(
      compact({
        type: 'app_mention',
        user,
        text,
        ts,
        event_ts: ts,
        thread_ts: threadTs,
        channel,
        team: this.teamId,
        client_msg_id: randomUUID(),
        blocks: richTextBlocks(text),
      }),
    );
    return { eventId, ts };
  }

  pushButton(options: PushButtonOptions): string {
    const { channel, user, messageTs, actionId } = options;
    const message = this.channels.get(channel)?.messages.get(messageTs);
    if (!message?.fromBot) throw new Error(`pushButton: ${channel} has no bot message ${messageTs}`);
    const found = findButton(message.blocks ?? [], actionId);
    if (!found) throw new Error(`pushButton: message ${messageTs} has no button ${actionId}`);
    if (options.value !== undefined && options.value !== found.button.value) {
      throw new Error(`pushButton: button ${actionId} has value ${String(found.button.value)}`);
    }
    return this.pushInteraction({
      type: 'block_actions',
      user: this.userRef(user),
      api_app_id: this.appId,
      token: 'fake-verification-token',
      container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
      trigger_id: this.newTrigger(),
      team: { id: this.teamId, domain: 'cairn-test' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: channel, name: channel },
      // A snapshot: later edits must not change an interaction already sent.
      message: structuredClone(this.messageObject(message)),
      state: { values: {} },
      response_url: this.newResponseUrl({ channel, messageTs, user }),
      actions: [
        compact({
          action_id: actionId,
          block_id: found.blockId,
          text: found.button.text,
          value: found.button.value,
          style: found.button.style,
          type: 'button',
          action_ts: this.nextTs(),
        }),
      ],
    });
  }

  pushViewSubmission(options: PushViewSubmissionOptions): string {
    const opened = this.openedViews.find((entry) => entry.id === options.viewId);
    if (!opened) throw new Error(`pushViewSubmission: no view ${options.viewId} was opened`);
    return this.pushInteraction({
      type: 'view_submission',
      team: { id: this.teamId, domain: 'cairn-test' },
      user: this.userRef(options.user),
      api_app_id: this.appId,
      token: 'fake-verification-token',
      trigger_id: this.newTrigger(),
      view: { ...structuredClone(opened.view), state: { values: options.values } },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    });
  }

  pushInteraction(payload: object): string {
    return this.deliver('interactive', payload, { retryAttempt: 0 });
  }

  pushSlashCommand(options: PushSlashCommandOptions): string {
    const state = this.channelState(options.channel);
    const name = `user-${options.user.toLowerCase()}`;
    return this.deliver(
      'slash_commands',
      {
        token: 'fake-verification-token',
        team_id: this.teamId,
        team_domain: 'cairn-test',
        channel_id: options.channel,
        channel_name: state.type === 'im' ? 'directmessage' : options.channel,
        user_id: options.user,
        user_name: name,
        command: options.command,
        text: options.text,
        api_app_id: this.appId,
        is_enterprise_install: 'false',
        response_url: this.newResponseUrl({ channel: options.channel, messageTs: '', user: options.user }),
        trigger_id: this.newTrigger(),
      },
      { retryAttempt: 0 },
    );
  }

  resend(eventId: string, retryAttempt?: number): string {
    const body = this.events.get(eventId);
    if (!body) throw new Error(`resend: no event ${eventId} was pushed`);
    const last = Math.max(...this.deliveries(eventId).map((d) => d.retryAttempt));
    const attempt = retryAttempt ?? last + 1;
    return this.deliver('events_api', body, { eventId, retryAttempt: attempt, retryReason: 'timeout' });
  }

  disconnect(reason: 'refresh_requested' | 'warning' | 'link_disabled' = 'refresh_requested'): void {
    const frame = JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake' } });
    for (const socket of [...this.sockets]) socket.send(frame);
  }

  // ---- Socket Mode

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', this.root);
    // Each URL apps.connections.open hands out is good for one connection.
    if (url.pathname !== '/link/' || !this.tickets.delete(url.searchParams.get('ticket') ?? '')) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
  }

  private accept(socket: WebSocket): void {
    this.sockets.push(socket);
    this.opened += 1;
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => {
      const index = this.sockets.indexOf(socket);
      if (index >= 0) this.sockets.splice(index, 1);
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.length,
        debug_info: { host: 'applink-fake', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: this.appId },
      }),
    );
  }

  /** An ack: `{envelope_id, payload?}`. Only the first one of an envelope counts, as in Slack. */
  private receive(data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    const frame = parseJson(String(data));
    const delivery = isObject(frame) ? this.sent.get(String(frame.envelope_id)) : undefined;
    if (!isObject(frame) || !delivery || delivery.ackedAt !== undefined) return;
    delivery.ackedAt = Date.now();
    delivery.ackPayload = isObject(frame.payload) ? frame.payload : {};
    this.acks.set(delivery.envelopeId, delivery.ackedAt);
  }

  private deliver(
    type: Delivery['type'],
    payload: object,
    options: { eventId?: string; retryAttempt: number; retryReason?: string },
  ): string {
    // Slack sends each envelope on one of the app's open connections; the newest is the one a refresh opened.
    const socket = this.sockets.filter((open) => open.readyState === open.OPEN).at(-1);
    if (!socket) throw new Error('no Socket Mode connection: start the app first');
    const envelopeId = randomUUID();
    const envelope =
      type === 'events_api'
        ? {
            envelope_id: envelopeId,
            payload,
            type,
            accepts_response_payload: false,
            retry_attempt: options.retryAttempt,
            retry_reason: options.retryReason ?? '',
          }
        : { envelope_id: envelopeId, payload, type, accepts_response_payload: false };
    const { eventId, retryAttempt } = options;
    this.sent.set(envelopeId, compact({ envelopeId, type, eventId, retryAttempt, sentAt: Date.now() }));
    socket.send(JSON.stringify(envelope));
    return envelopeId;
  }

  // ---- HTTP

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? '/', this.root);
      const params = await readParams(request, url);
      const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
      if (method !== undefined) return this.handleApi(method, request, params, response);
      const target = this.responseUrls.get(url.pathname);
      if (target && request.method === 'POST') return this.handleResponseUrl(target, params, response);
      send(response, 404, { ok: false, error: 'not_found' });
    } catch (error) {
      const refusal = error instanceof SlackApiError ? error : new SlackApiError('internal_error');
      send(response, error instanceof SlackApiError ? 200 : 500, refusal.body);
    }
  }

  private handleApi(
    method: string,
    request: IncomingMessage,
    params: Params,
    response: ServerResponse,
  ): void {
    const token = tokenOf(request, params);
    this.log.push(compact({ method, params, token, at: Date.now() }));
    const fault = this.faults.get(method)?.shift();
    if (fault) return sendFault(response, fault);
    const handler = this.methods.get(method);
    if (!handler) throw new SlackApiError('unknown_method', { req_method: method });
    this.authenticate(token, handler.token);
    send(response, 200, { ok: true, ...handler.run(params) });
  }

  private authenticate(token: string | undefined, kind: TokenKind): void {
    if (token === undefined || token === '') throw new SlackApiError('not_authed');
    const expected = kind === 'bot' ? this.botToken : this.appToken;
    if (token === expected) return;
    const other = kind === 'bot' ? this.appToken : this.botToken;
    throw new SlackApiError(token === other ? 'not_allowed_token_type' : 'invalid_auth');
  }

  private async shutDown(): Promise<void> {
    await this.closeSockets();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * A close frame lets the SDK finish its close handshake: cut off instead, it keeps a 30-second timer
   * alive. A socket that does not answer within a second is cut all the same.
   */
  private async closeSockets(): Promise<void> {
    const open = [...this.sockets];
    const closed = Promise.all(open.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    for (const socket of open) socket.close(1001, 'server closing');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    for (const socket of [...this.sockets]) socket.terminate();
  }

  // ---- Web API methods

  private authTest(): object {
    return {
      url: 'https://cairn-test.slack.com/',
      team: 'Cairn Test',
      user: 'cairn',
      team_id: this.teamId,
      user_id: this.botUserId,
      bot_id: this.botId,
      is_enterprise_install: false,
    };
  }

  private openConnection(): object {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return { url: `${this.root.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${this.appId}` };
  }

  private postMessage(params: Params): object {
    const channel = this.knownChannel(params.channel);
    const content = messageContent(params);
    const message: StoredMessage = {
      ts: this.nextTs(),
      user: this.botUserId,
      fromBot: true,
      ...content,
      threadTs: optionalString(params.thread_ts),
      edits: 0,
      history: [content.text],
    };
    channel.messages.set(message.ts, message);
    return { channel: params.channel, ts: message.ts, message: this.messageObject(message) };
  }

  private updateMessage(params: Params): object {
    const message = this.knownChannel(params.channel).messages.get(String(params.ts ?? ''));
    if (!message) throw new SlackApiError('message_not_found');
    if (!message.fromBot) throw new SlackApiError('cant_update_message');
    this.edit(message, messageContent(params));
    const { ts, text } = message;
    return { channel: params.channel, ts, text, message: this.messageObject(message) };
  }

  private postEphemeral(params: Params): object {
    const channel = this.knownChannel(params.channel);
    const user = optionalString(params.user);
    if (!user || !/^[UW][A-Z0-9]+$/.test(user)) throw new SlackApiError('user_not_in_channel');
    const threadTs = optionalString(params.thread_ts);
    channel.ephemerals.push(compact({ user, ...messageContent(params), threadTs }));
    return { message_ts: this.nextTs() };
  }

  private conversationInfo(params: Params): object {
    const id = String(params.channel ?? '');
    const { type, user } = this.knownChannel(id);
    const base = { id, created: FIRST_TS_SECONDS, is_member: true, is_archived: false };
    if (type === 'im') return { channel: compact({ ...base, is_im: true, user, is_open: true }) };
    const isPrivate = type === 'group';
    return {
      channel: { ...base, name: `chan-${id.toLowerCase()}`, is_channel: !isPrivate, is_private: isPrivate },
    };
  }

  private userInfo(params: Params): object {
    const id = String(params.user ?? '');
    if (!/^[UW][A-Z0-9]+$/.test(id)) throw new SlackApiError('user_not_found');
    const isBot = id === this.botUserId;
    const name = isBot ? 'cairn' : `user-${id.toLowerCase()}`;
    return {
      user: {
        id,
        team_id: this.teamId,
        name,
        real_name: name,
        deleted: false,
        is_bot: isBot,
        tz: 'Etc/UTC',
        profile: { real_name: name, display_name: name },
      },
    };
  }

  private openView(params: Params): object {
    const triggerId = String(params.trigger_id ?? '');
    const issuedAt = this.triggers.get(triggerId);
    if (issuedAt === undefined) throw new SlackApiError('invalid_trigger_id');
    this.triggers.delete(triggerId);
    if (Date.now() - issuedAt > TRIGGER_LIFETIME_MS) throw new SlackApiError('expired_trigger_id');
    this.lastViewNumber += 1;
    const view = {
      id: `V0FAKE${String(this.lastViewNumber).padStart(4, '0')}`,
      team_id: this.teamId,
      app_id: this.appId,
      bot_id: this.botId,
      state: { values: {} },
      hash: `${Date.now()}.fake`,
      private_metadata: '',
      callback_id: '',
      ...checkedView(params.view),
    };
    this.openedViews.push({ id: view.id, triggerId, view });
    return { view };
  }

  // ---- response_url

  /** Bolt's respond(): an HTTP error makes it throw, so a refused post answers 400. */
  private handleResponseUrl(target: ResponseTarget, body: Params, response: ServerResponse): void {
    const { channel, messageTs } = target;
    this.responsePosts.push({ channel, messageTs, body });
    try {
      this.applyResponse(target, body);
      send(response, 200, { ok: true });
    } catch (error) {
      if (!(error instanceof SlackApiError)) throw error;
      send(response, 400, error.body);
    }
  }

  /** replace_original edits the message, delete_original removes it, in_channel posts, else ephemeral. */
  private applyResponse(target: ResponseTarget, body: Params): void {
    const channel = this.knownChannel(target.channel);
    const message = channel.messages.get(target.messageTs);
    if (truthy(body.delete_original)) channel.messages.delete(target.messageTs);
    else if (truthy(body.replace_original) && message) this.edit(message, messageContent(body));
    else if (body.response_type === 'in_channel') this.postMessage({ ...body, channel: target.channel });
    else channel.ephemerals.push({ user: target.user, ...messageContent(body) });
  }

  // ---- state

  private edit(message: StoredMessage, content: { text: string; blocks?: object[] }): void {
    message.text = content.text;
    // As in chat.update: left out, the blocks stay; an empty list removes them.
    if (content.blocks !== undefined) message.blocks = content.blocks.length > 0 ? content.blocks : undefined;
    message.edits += 1;
    message.editedTs = this.nextTs();
    message.history.push(content.text);
  }

  private userMessage(state: ChannelState, user: string, text: string, threadTs?: string): string {
    const ts = this.nextTs();
    state.messages.set(ts, { ts, user, fromBot: false, text, threadTs, edits: 0, history: [text] });
    return ts;
  }

  /** A message as the API hands it out. */
  private messageObject(message: StoredMessage): object {
    const { ts, user, text, blocks, threadTs, fromBot, editedTs } = message;
    return compact({
      type: 'message',
      user,
      bot_id: fromBot ? this.botId : undefined,
      app_id: fromBot ? this.appId : undefined,
      text,
      ts,
      thread_ts: threadTs,
      team: this.teamId,
      blocks,
      edited: editedTs === undefined ? undefined : { user, ts: editedTs },
    });
  }

  private knownChannel(value: unknown): ChannelState {
    const id = typeof value === 'string' ? value : '';
    if (!/^[CDG][A-Z0-9]+$/.test(id)) throw new SlackApiError('channel_not_found');
    return this.channelState(id);
  }

  private channelState(id: string, type?: ChannelState['type']): ChannelState {
    let state = this.channels.get(id);
    if (!state) {
      const byPrefix = id.startsWith('D') ? 'im' : id.startsWith('G') ? 'group' : 'channel';
      state = { type: type ?? byPrefix, messages: new Map(), ephemerals: [] };
      this.channels.set(id, state);
    }
    return state;
  }

  private userRef(id: string): object {
    const name = `user-${id.toLowerCase()}`;
    return { id, username: name, name, team_id: this.teamId };
  }

  /** Message timestamps: unique and increasing across the workspace, as Slack's are per channel. */
  private nextTs(): string {
    this.lastTsMicros += 100;
    const seconds = FIRST_TS_SECONDS + Math.floor(this.lastTsMicros / 1_000_000);
    return `${seconds}.${String(this.lastTsMicros % 1_000_000).padStart(6, '0')}`;
  }

  private newTrigger(): string {
    const triggerId = `${this.lastEventNumber}.${Date.now()}.${randomUUID().replaceAll('-', '')}`;
    this.triggers.set(triggerId, Date.now());
    return triggerId;
  }

  private newResponseUrl(target: ResponseTarget): string {
    const path = `/actions/${this.teamId}/${this.responseUrls.size + 1}/${randomUUID()}`;
    this.responseUrls.set(path, target);
    return `${this.root}${path}`;
  }
}

// ---- message content and blocks

/** The text and blocks of a message, refused as Slack refuses them. */
function messageContent(params: Params): { text: string; blocks?: object[] } {
  const text = params.text === undefined || params.text === null ? '' : String(params.text);
  const blocks = blocksOf(params.blocks, MAX_MESSAGE_BLOCKS);
  if (text.length > MAX_TEXT_LENGTH) throw new SlackApiError('msg_too_long');
  if (text === '' && (blocks === undefined || blocks.length === 0) && params.attachments === undefined) {
    throw new SlackApiError('no_text');
  }
  return compact({ text, blocks });
}

function blocksOf(value: unknown, max: number): object[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const blocks = typeof value === 'string' ? parseJson(value) : value;
  if (!Array.isArray(blocks)) throw new SlackApiError('invalid_blocks_format');
  const problems = blocks.flatMap((block: unknown, index) => blockProblems(block, `/blocks/${index}`));
  if (blocks.length > max) problems.unshift(`no more than ${max} items allowed [json-pointer:/blocks]`);
  problems.push(...duplicateBlockIds(blocks));
  if (problems.length > 0) throw invalidBlocks(problems);
  return blocks as object[];
}

/** Slack's wording: one `[ERROR] … [json-pointer:…]` line per problem. */
function invalidBlocks(problems: string[]): SlackApiError {
  return new SlackApiError('invalid_blocks', {
    errors: problems,
    response_metadata: { messages: problems.map((problem) => `[ERROR] ${problem}`) },
  });
}

function blockProblems(block: unknown, at: string): string[] {
  if (!isObject(block)) return [`must provide an object [json-pointer:${at}]`];
  if (typeof block.type !== 'string' || !BLOCK_TYPES.has(block.type)) {
    return [`must be a valid enum value [json-pointer:${at}/type]`];
  }
  const problems = [tooLong(block.block_id, 255, `${at}/block_id`)];
  if (block.type === 'section') problems.push(...sectionProblems(block, at));
  if (block.type === 'header') problems.push(textProblem(block.text, 150, `${at}/text`));
  if (block.type === 'actions') problems.push(...actionsProblems(block, at));
  return problems.filter((problem): problem is string => problem !== undefined);
}

function sectionProblems(block: Record<string, unknown>, at: string): Array<string | undefined> {
  const fields = Array.isArray(block.fields) ? block.fields : [];
  if (block.text === undefined && fields.length === 0) {
    return [`must provide at least one of text or fields [json-pointer:${at}]`];
  }
  const text = block.text === undefined ? undefined : textProblem(block.text, 3000, `${at}/text`);
  return [text, ...fields.map((field: unknown, index) => textProblem(field, 2000, `${at}/fields/${index}`))];
}

function actionsProblems(block: Record<string, unknown>, at: string): Array<string | undefined> {
  const elements = Array.isArray(block.elements) ? block.elements : [];
  if (elements.length === 0) return [`must provide at least 1 item [json-pointer:${at}/elements]`];
  if (elements.length > 25) return [`no more than 25 items allowed [json-pointer:${at}/elements]`];
  return elements.flatMap((element: unknown, index) => {
    const where = `${at}/elements/${index}`;
    if (!isObject(element) || element.type !== 'button') return [];
    return [
      textProblem(element.text, 75, `${where}/text`),
      tooLong(element.action_id, 255, `${where}/action_id`),
      tooLong(element.value, 2000, `${where}/value`),
    ];
  });
}

/** A text object: `{type: 'plain_text' | 'mrkdwn', text}` with 1 to `max` characters. */
function textProblem(value: unknown, max: number, at: string): string | undefined {
  if (!isObject(value) || (value.type !== 'plain_text' && value.type !== 'mrkdwn')) {
    return `must provide a text object [json-pointer:${at}]`;
  }
  if (typeof value.text !== 'string' || value.text === '') {
    return `must be more than 0 characters [json-pointer:${at}/text]`;
  }
  return tooLong(value.text, max, `${at}/text`);
}

function tooLong(value: unknown, max: number, at: string): string | undefined {
  return typeof value === 'string' && value.length > max
    ? `must be less than ${max + 1} characters [json-pointer:${at}]`
    : undefined;
}

function duplicateBlockIds(blocks: unknown[]): string[] {
  const ids = blocks.map((block) => (isObject(block) ? block.block_id : undefined)).filter(Boolean);
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  return [...new Set(repeated)].map((id) => `duplicate block_id ${String(id)} [json-pointer:/blocks]`);
}

function checkedView(value: unknown): Record<string, unknown> {
  const view = typeof value === 'string' ? parseJson(value) : value;
  if (!isObject(view) || view.type !== 'modal') throw new SlackApiError('invalid_arguments');
  const problems = [textProblem(view.title, 24, '/view/title')].filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw invalidBlocks(problems);
  blocksOf(view.blocks ?? [], MAX_VIEW_BLOCKS);
  return view;
}

/** A button with `actionId` in an actions block or a section accessory. */
function findButton(
  blocks: object[],
  actionId: string,
): { blockId?: string; button: Record<string, unknown> } | undefined {
  for (const block of blocks.filter(isObject)) {
    const elements = Array.isArray(block.elements) ? block.elements : [block.accessory];
    const button = elements.find(
      (element: unknown) => isObject(element) && element.type === 'button' && element.action_id === actionId,
    ) as Record<string, unknown> | undefined;
    if (button) return { blockId: optionalString(block.block_id), button };
  }
  return undefined;
}

/** The rich_text block Slack's clients attach to what a user types. */
function richTextBlocks(text: string): object[] {
  const elements = [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }];
  return [{ type: 'rich_text', block_id: randomUUID().slice(0, 5), elements }];
}

// ---- parameters and answers

async function readParams(request: IncomingMessage, url: URL): Promise<Params> {
  const query = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (body === '') return query;
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const parsed = parseJson(body);
    if (!isObject(parsed)) throw new SlackApiError('invalid_json');
    return { ...query, ...parsed };
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { ...query, ...Object.fromEntries(new URLSearchParams(body)) };
  }
  throw new SlackApiError('invalid_form_data');
}

/** The Bearer token wins over a `token` parameter, as it does in Slack. */
function tokenOf(request: IncomingMessage, params: Params): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return bearer ?? optionalString(params.token);
}

function send(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function sendFault(response: ServerResponse, fault: FaultAnswer): void {
  if ('retryAfterSeconds' in fault) {
    response
      .writeHead(429, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': `${fault.retryAfterSeconds}`,
      })
      .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
    return;
  }
  send(response, fault.status, fault.body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Form posts carry booleans as strings. */
function truthy(value: unknown): boolean {
  return value === true || value === 'true';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object without its undefined fields, as the API leaves absent optional fields out. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
