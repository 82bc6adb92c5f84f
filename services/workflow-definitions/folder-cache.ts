import { readdir } from 'node:fs/promises';
import { folderSignature } from '../../config/file-signature.js';
import { deepFreeze } from '../../config/freeze.js';
import { RecentCache } from '../../config/recent-cache.js';

interface CachedFolder<T> {
  variant: string;
  signature: string;
  value: T;
}

/**
 * What was made of each folder of workflows or commands, kept while the folder's signature (its
 * entries' names, sizes and times) stays the same: a listing costs a directory read and a stat
 * per file instead of parsing and validating every file. Values are frozen, since every caller
 * shares them. `variant` names how the folder was read (its source and file-name prefix).
 */
export class FolderCache<T> {
  private readonly folders = new RecentCache<string, CachedFolder<T>>(256);

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
    // Taken before loading: a change made during the load gives the next read a new signature.
    const signature = folderSignature(folder);
    if (cached?.signature === signature && cached.variant === variant) return cached.value;
    const value = deepFreeze(await load());
    this.folders.set(folder, { variant, signature, value });
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
