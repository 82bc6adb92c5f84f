/**
 * Updates of one thing (a checkout) asked for by many callers at once share runs: a caller that
 * arrives while an update runs gets the next one, started once that one ends, and every caller
 * arriving meanwhile shares it too. So each caller's update starts after the caller asked (it sees
 * what was there when it asked, a push just before included), and 50 requests arriving together
 * cost two updates, not 50 (each a few git processes, whose spawn alone blocks the event loop).
 */
export class CoalescedUpdates {
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();

  /** Runs `update` for `key`, or shares a run of it that starts after this call. It must not reject. */
  run(key: string, update: () => Promise<void>): Promise<void> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const running = this.running.get(key);
    if (!running) return this.start(key, update);
    const next = running.then(() => {
      this.queued.delete(key);
      return this.start(key, update);
    });
    this.queued.set(key, next);
    return next;
  }

  private start(key: string, update: () => Promise<void>): Promise<void> {
    const run = update().finally(() => {
      if (this.running.get(key) === run) this.running.delete(key);
    });
    this.running.set(key, run);
    return run;
  }
}
