import { readdir } from 'node:fs/promises';
import { deepFreeze } from '../../config/freeze.js';
import { FolderWatch } from '../../config/folder-watch.js';
import { RecentCache } from '../../config/recent-cache.js';

interface CachedFolder<T> {
  variant: string;
  watch: FolderWatch;
  value: T;
}

/**
 * What was made of each folder of workflows or commands, kept while the folder does not change
 * (config/folder-watch.ts: an OS watch, its signature where a watch cannot tell), instead of
 * parsing and validating every file per listing. Values are frozen, since every caller shares
 * them. `variant` names how the folder was read (its source and file-name prefix).
 */
export class FolderCache<T> {
  private readonly folders = new RecentCache<string, CachedFolder<T>>(256, (entry) => entry.watch.close());

  /**
   * `fixed`: the folder is Cairn's own (its bundled definitions, which change only with an
   * upgrade, and so a restart): read once, never checked again.
   */
  async read(
    folder: string,
    variant: string,
    load: () => Promise<T>,
    options: { fixed?: boolean } = {},
  ): Promise<T> {
    const cached = this.folders.get(folder);
    if (options.fixed && cached?.variant === variant) return cached.value;
    if (cached?.variant === variant && !(await cached.watch.changed())) return cached.value;
    const watch = cached?.watch ?? new FolderWatch(folder);
    // Marked before loading: a change made during the load is seen by the next read. Cairn's own
    // folders are never checked, so never watched.
    if (!options.fixed) watch.markRead();
    const value = deepFreeze(await load());
    // The entry is changed in place when there is one: replacing it would close its watch.
    if (cached && this.folders.get(folder) === cached) Object.assign(cached, { variant, value });
    else this.folders.set(folder, { variant, watch, value });
    return value;
  }

  /** Drops a folder at once, after Cairn itself wrote to it. */
  forget(folder: string): void {
    this.folders.delete(folder);
  }
}

/**
 * The names of the files in `folder` that match `pattern`, sorted; a missing folder holds none.
 * Symbolic links are included: the caller checks where a project's links lead.
 */
export async function matchingFileNames(folder: string, pattern: RegExp): Promise<string[]> {
  try {
    return (await readdir(folder, { withFileTypes: true }))
      .filter((dirent) => (dirent.isFile() || dirent.isSymbolicLink()) && pattern.test(dirent.name))
      .map((dirent) => dirent.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}
