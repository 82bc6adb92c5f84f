/**
 * A map that keeps only its most recently used entries, so caches keyed by paths (one per
 * repository, worktree or folder) stay bounded however many paths a long-lived process meets.
 */
export class RecentCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
  ) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as the most recent.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    const previous = this.entries.get(key);
    if (previous !== undefined && previous !== value) this.onEvict(previous);
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const [oldestKey, oldest] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldestKey);
      this.onEvict(oldest);
    }
  }

  delete(key: K): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.onEvict(value);
  }

  clear(): void {
    const values = [...this.entries.values()];
    this.entries.clear();
    for (const value of values) this.onEvict(value);
  }
}
