/**
 * Writes that arrive together are written together: each `add` waits for a shared `write` of
 * every item added in the same turn of the event loop (or while the previous write was still
 * running), so 50 webhooks arriving at once cost one transaction and one commit, not 50. Each
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

  /** `write` answers one result per item, in the order given. */
  constructor(private readonly write: (items: Item[]) => Promise<Result[]>) {}

  add(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the other requests read from their sockets in this same
    // turn are parsed first and join the write.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
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
