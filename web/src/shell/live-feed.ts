// The __dashboard__ stream, followed once for the whole page: every run event reaches the pages
// that listen (the run list refreshes, a run's page applies its own events).
import { followStream, type StreamFrame, type StreamState } from '../api/event-stream';

type Listener = (frame: StreamFrame) => void;
const listeners = new Set<Listener>();
const stateListeners = new Set<(state: StreamState) => void>();
let stop: (() => void) | undefined;
let state: StreamState = 'connecting';

export function startRunFeed(): () => void {
  stop ??= followStream('__dashboard__', {
    onFrame: (frame) => listeners.forEach((listener) => listener(frame)),
    onState: (next) => {
      state = next;
      stateListeners.forEach((listener) => listener(next));
    },
    onSnapshotNeeded: () => listeners.forEach((listener) => listener({ id: 0, data: { type: 'resync' } })),
  });
  return () => {
    stop?.();
    stop = undefined;
  };
}

export function onRunFrame(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function onFeedState(listener: (state: StreamState) => void): () => void {
  stateListeners.add(listener);
  listener(state);
  return () => stateListeners.delete(listener);
}
