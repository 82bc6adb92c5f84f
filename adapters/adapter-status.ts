import type { AdapterState, AdapterStatus } from '../domain/chat/adapter-state.js';

/** An adapter's state for /api/health, changed as it connects, works and fails. */
export class AdapterStatusHolder {
  private current: AdapterState = { status: 'connecting', since: new Date().toISOString() };

  get state(): AdapterState {
    return this.current;
  }

  set(status: AdapterStatus, detail?: string): void {
    if (this.current.status === status && this.current.detail === detail) return;
    this.current = { status, ...(detail ? { detail } : {}), since: new Date().toISOString() };
  }
}

/** Waits `ms`, or less when `signal` aborts (the adapter is stopping). */
export function pauseUnlessStopped(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** An error's message for logs and health, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
