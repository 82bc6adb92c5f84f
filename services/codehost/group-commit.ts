/**
 * Writes that arrive together are written together: each `add` waits for a shared `write` of
 * every item added within `gatherMs` of the first (or while the previous write was still
 * running), so 50 webhooks arriving at once cost a few transactions and commits, not 50. Each
 * caller's promise settles only once its item's write is done: nothing is answered before it is
 * committed. A failed write fails every item in it.
 */
export class GroupCommit<Item, Result> {
  private waiting: Array<{
    item: Item;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  }> = [];
  private scheduled = false;
  private writing = false;

  /**
   * `write` answers one result per item, in the order given. `gatherMs` 0 writes at the next
   * turn of the event loop: the items read from the sockets in the same turn.
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    private readonly gatherMs = 0,
  ) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    const flush = () => {
      this.scheduled = false;
      void this.flush();
    };
    // Not a microtask: the other requests read from their sockets in this same turn are parsed
    // first and join the write; a gathering window also takes in those of the next few turns.
    if (this.gatherMs > 0) setTimeout(flush, this.gatherMs);
    else setImmediate(flush);
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.writing = true;
    try {
      const results = await this.write(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.writing = false;
      // What arrived during the write goes in the next one.
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
