import type { ApiClient } from './api-client.js';
import { ClientExit, EXIT } from './exit-codes.js';

/** One Server-Sent Event of a Cairn stream: its journal id and its JSON data. */
export interface StreamEvent {
  id: number;
  data: { type: string; [field: string]: unknown };
}

const RECONNECT_MS = 1_000;
const MAX_RECONNECTS = 30;

/** Parses `text/event-stream` bytes into events; comments (heartbeats) are skipped. */
async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.search(/\r?\n\r?\n/); end !== -1; end = buffer.search(/\r?\n\r?\n/)) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { id, data: data.join('\n') };
    }
  }
}

/**
 * A stream of one conversation (or `__dashboard__`), read until `signal` aborts. A dropped
 * connection is reopened with Last-Event-ID, so no event is lost or repeated. `cursor.lastId`
 * starts after that event id (0: from the beginning); without it, with the next event. The caller
 * may set it before the first event arrives (from a history it read meanwhile), so a reconnect
 * before then misses nothing either.
 */
export async function* readStream(
  api: ApiClient,
  streamId: string,
  options: { cursor?: { lastId?: number }; signal: AbortSignal; onOpen?: () => void },
): AsyncGenerator<StreamEvent> {
  const cursor = options.cursor ?? {};
  let failures = 0;
  while (!options.signal.aborted) {
    let response: Response;
    try {
      response = await api.fetch(api.url(`/api/stream/${encodeURIComponent(streamId)}`), {
        headers: api.headers({
          accept: 'text/event-stream',
          ...(cursor.lastId === undefined ? {} : { 'last-event-id': String(cursor.lastId) }),
        }),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) return;
      if (++failures > MAX_RECONNECTS) throw error;
      await pause(RECONNECT_MS, options.signal);
      continue;
    }
    if (!response.ok || !response.body) {
      const detail = await response.text().catch(() => '');
      const problem = safeJson(detail) as { detail?: string } | undefined;
      throw new ClientExit(
        `cannot follow ${streamId}: ${problem?.detail ?? `the server answered ${response.status}`}`,
        response.status === 401 || response.status === 403 ? EXIT.notAllowed : EXIT.refused,
      );
    }
    failures = 0;
    options.onOpen?.();
    try {
      for await (const frame of frames(response.body)) {
        const data = safeJson(frame.data);
        if (!data || typeof data !== 'object') continue;
        const id = Number(frame.id);
        if (Number.isFinite(id)) cursor.lastId = id;
        yield { id, data: data as StreamEvent['data'] };
      }
    } catch (error) {
      if (options.signal.aborted) return;
      if (++failures > MAX_RECONNECTS) throw error;
    }
    await pause(RECONNECT_MS, options.signal);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** A stream that is connected: what the caller does next shows on it. */
export interface OpenStream {
  /** The first step, already asked for (reading it is what opened the stream). */
  first: Promise<IteratorResult<StreamEvent>>;
  stream: AsyncGenerator<StreamEvent>;
  /** Stops reading and drops the connection. */
  close(): Promise<void>;
}

/**
 * Opens a stream and answers once it is connected (or its first event came), so a message sent
 * or a history read after this misses nothing that follows it.
 */
export async function openStream(
  api: ApiClient,
  streamId: string,
  cursor: { lastId?: number } = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = readStream(api, streamId, { cursor, signal: controller.signal, onOpen: opened });
  const first = stream.next();
  const close = async () => {
    controller.abort();
    await stream.return(undefined).catch(() => undefined);
  };
  try {
    await Promise.race([open, first]);
  } catch (error) {
    await close();
    throw error;
  }
  return { first, stream, close };
}
