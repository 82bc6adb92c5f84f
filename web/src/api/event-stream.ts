import type { StreamFrame } from './stream-frame.js';

export type { StreamFrame };

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export interface StreamHandlers {
  onFrame(frame: StreamFrame): void;
  onState?(state: StreamState): void;
  /**
   * The stream (re)opened with no event id to resume from: whatever happened before is not in
   * it, so the caller reloads its snapshot now (the stream already runs, so nothing falls between).
   */
  onSnapshotNeeded?(): void;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * Follows GET /api/stream/{id}. Every frame's id is kept; a dropped connection is opened again
 * with `lastEventId` so the server replays exactly what was missed, and a frame already seen is
 * never handed on twice. Returns the function that stops it.
 */
export function followStream(streamId: string, handlers: StreamHandlers): () => void {
  let lastId: number | undefined;
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let stopped = false;

  const open = () => {
    const resumeFrom = lastId === undefined ? '' : `?lastEventId=${lastId}`;
    handlers.onState?.(failures === 0 ? 'connecting' : 'reconnecting');
    const current = new EventSource(`/api/stream/${encodeURIComponent(streamId)}${resumeFrom}`);
    source = current;
    current.onopen = () => {
      failures = 0;
      handlers.onState?.('live');
      if (lastId === undefined) handlers.onSnapshotNeeded?.();
    };
    current.onmessage = (message: MessageEvent<string>) => {
      const id = Number(message.lastEventId);
      if (!Number.isFinite(id) || (lastId !== undefined && id <= lastId)) return;
      lastId = id;
      handlers.onFrame({ id, data: JSON.parse(message.data) as StreamFrame['data'] });
    };
    current.onerror = () => {
      // Reopened by hand (not by EventSource itself) so the resume point is always ours.
      current.close();
      if (stopped) return;
      failures += 1;
      handlers.onState?.('reconnecting');
      timer = setTimeout(open, Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 6)));
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
  };
}
