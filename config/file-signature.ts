import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/**
 * What tells a reader that a file may have changed: its inode (an editor's atomic replace), size
 * and modification time. One stat, cheap enough to compare on every use, so a change written just
 * before a request is seen by that request.
 */
export function fileSignature(path: string): string {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : 'absent';
}

/**
 * The signature of a folder's entries (names, and the file signature of each), so a file added,
 * edited, renamed or removed changes it. A missing folder has the signature `absent`.
 */
export function folderSignature(folder: string): string {
  let names: string[];
  try {
    // Most folders asked about do not exist (a project without .archon/, without commands): a
    // stat that answers "absent" costs a tenth of the error a failed readdir throws, per listing.
    if (!statSync(folder, { throwIfNoEntry: false })) return 'absent';
    names = readdirSync(folder).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    throw error;
  }
  return names.map((name) => `${name}=${fileSignature(join(folder, name))}`).join('\n');
}

/**
 * A file read at some moment, and whether it may have changed since. An OS watch (where one can
 * be set) reports changes the signature cannot see, such as a same-size edit within the
 * filesystem's timestamp resolution; the signature covers what watching misses (network
 * filesystems, a file that did not exist yet, an event still on its way). Watches never hold the
 * process open; close() releases them.
 */
export class TrackedFile {
  private signature = '';
  private watcher: FSWatcher | undefined;
  private reported = false;

  constructor(
    readonly path: string,
    private readonly watching: () => boolean,
  ) {}

  /** True when the file may differ from what was read after the last markRead(). */
  changed(): boolean {
    return this.reported || fileSignature(this.path) !== this.signature;
  }

  /** Call right before reading the file: a change during the read is then seen by the next check. */
  markRead(): void {
    this.close();
    this.reported = false;
    this.signature = fileSignature(this.path);
    if (this.signature !== 'absent' && this.watching()) this.watch();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private watch(): void {
    try {
      this.watcher = watch(this.path, { persistent: false }, () => {
        this.reported = true;
      });
      this.watcher.on('error', () => {
        this.reported = true;
        this.close();
      });
    } catch {
      // Gone meanwhile, or the OS is out of watches: the signature check still sees changes.
      this.watcher = undefined;
    }
  }
}
