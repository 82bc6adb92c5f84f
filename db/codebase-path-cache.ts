import type { Codebase } from './repositories/codebases.js';

/** The Postgres channel a change to `codebases` (any process, any statement) is announced on. */
export const CODEBASES_CHANNEL = 'cairn_codebases';

/** More distinct checkouts than a server has codebases: past it the cache starts over. */
const MAX_PATHS = 1_000;

/**
 * The codebase whose checkout is at a path, kept in memory between the workflow and command
 * listings that ask for it on every request (on Postgres each ask was a round trip, a fifth of a
 * listing's cost). Trusted only while this process hears the database's change notices: the
 * journal listener trusts it once it LISTENs on CODEBASES_CHANNEL (a migration's trigger notifies
 * there on every change of `codebases`) and distrusts it whenever that connection is lost, so a
 * change made while nobody listened is never missed. Untrusted, every lookup reads the database.
 * A change in this process also clears it at once (`invalidate`), before its notice comes back.
 */
export class CodebasePathCache {
  private readonly entries = new Map<string, Codebase>();
  // Bumped by every change: a read that started before one must not store what it found.
  private generation = 0;
  private isTrusted = false;

  /** Whether lookups are answered from memory now (change notices are heard). */
  get trusted(): boolean {
    return this.isTrusted;
  }

  /** Whether change notices are heard now; either way what is kept goes. */
  trust(listening: boolean): void {
    this.isTrusted = listening;
    this.invalidate();
  }

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  async lookup(
    path: string,
    read: (path: string) => Promise<Codebase | undefined>,
  ): Promise<Codebase | undefined> {
    if (!this.isTrusted) return read(path);
    const kept = this.entries.get(path);
    if (kept) return kept;
    const generation = this.generation;
    const found = await read(path);
    // Only what exists is kept: a path that is not a checkout is looked up again next time.
    if (found && this.isTrusted && generation === this.generation) {
      if (this.entries.size >= MAX_PATHS) this.entries.clear();
      this.entries.set(path, found);
    }
    return found;
  }
}
