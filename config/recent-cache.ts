/**
 * A map that keeps only its most recently used entries, so caches keyed by paths (one per
 * repository, worktree or folder) stay bounded however many paths a long-lived process meets.
 *
 * A use stamps its entry with a counter rather than moving it to the end of the map: deleting and
 * re-inserting on every read (several per request) left tombstones that made V8 rebuild the
 * map's table again and again. The least recently used entry is looked for only when one must go.
 */
export class RecentCache<K, V> {
  private readonly entries = new Map<K, { value: V; used: number }>();
  private uses = 0;

  constructor(
    private readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.uses;
    return entry.value;
  }

  set(key: K, value: V): void {
    const previous = this.entries.get(key);
    if (previous !== undefined && previous.value !== value) this.onEvict(previous.value);
    this.entries.set(key, { value, used: ++this.uses });
    while (this.entries.size > this.capacity) this.evictLeastRecent();
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.onEvict(entry.value);
  }

  clear(): void {
    const values = [...this.entries.values()];
    this.entries.clear();
    for (const entry of values) this.onEvict(entry.value);
  }

  private evictLeastRecent(): void {
    let oldestKey: K | undefined;
    let oldest: { value: V; used: number } | undefined;
    for (const [key, entry] of this.entries) {
      if (!oldest || entry.used < oldest.used) {
        oldestKey = key;
        oldest = entry;
      }
    }
    this.entries.delete(oldestKey as K);
    this.onEvict(oldest!.value);
  }
}
