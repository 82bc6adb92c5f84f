import { PassThrough } from 'node:stream';
import { HttpProblem } from './problem.js';
import type { HttpContext } from './route.js';

export interface EventStreamOptions {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** A client this far behind (bytes not yet taken by the socket) is dropped; it reconnects with Last-Event-ID. */
  maxBufferedBytes?: number;
}

export interface EventStream {
  /** Writes one frame; false once the stream is closed. */
  send(id: number, data: unknown): boolean;
  readonly closed: boolean;
  onClose(listener: () => void): void;
  close(): void;
}

const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_BUFFERED = 8 * 1024 * 1024;
const RECONNECT_HINT_MS = 2_000;

/**
 * Turns the response into a text/event-stream. Every frame carries the journal id as `id:`, so
 * a reconnecting browser sends it back as Last-Event-ID and misses nothing.
 */
export function openEventStream(ctx: HttpContext, options: EventStreamOptions = {}): EventStream {
  const body = new PassThrough();
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const listeners: Array<() => void> = [];
  let closed = false;

  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    // nginx and similar proxies buffer responses unless told not to.
    'X-Accel-Buffering': 'no',
  });
  ctx.body = body;
  body.write(`retry: ${RECONNECT_HINT_MS}\n: connected\n\n`);

  const heartbeat = setInterval(() => {
    if (!closed) body.write(': heartbeat\n\n');
  }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    body.end();
    for (const listener of listeners.splice(0)) listener();
  };
  ctx.req.on('close', close);
  ctx.res.on('close', close);
  body.on('error', close);

  return {
    get closed() {
      return closed;
    },
    send(id, data) {
      if (closed) return false;
      body.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
      if (body.writableLength > maxBuffered) {
        // Ending would wait for a client that stopped reading; cutting the connection frees the buffer.
        close();
        ctx.res.destroy();
      }
      return !closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    close,
  };
}

const EVENT_ID = /^\d{1,15}$/;

/**
 * The journal id a client last saw: the Last-Event-ID header (what EventSource sends when it
 * reconnects), else a `lastEventId` query value. Undefined when neither is given.
 */
export function lastEventIdOf(ctx: HttpContext, queryValue: string | undefined): number | undefined {
  const header = ctx.get('Last-Event-ID').trim();
  const [raw, path] = header ? [header, '/headers/last-event-id'] : [queryValue, '/query/lastEventId'];
  if (raw === undefined || raw === '') return undefined;
  if (!EVENT_ID.test(raw)) {
    throw HttpProblem.validation([{ path, message: 'must be a non-negative integer event id' }]);
  }
  return Number(raw);
}
