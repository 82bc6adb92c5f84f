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
 * An OS watch on a file or folder that remembers whether it reported anything since reset().
 * It never holds the process open; where no watch can be set (the path is gone, the OS is out of
 * watches) there is none, and the caller's signature check has to tell.
 */
export class ChangeReport {
  private watcher: FSWatcher | undefined;
  private seen = false;

  constructor(private readonly path: string) {}

  get reported(): boolean {
    return this.seen;
  }

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  reset(): void {
    this.seen = false;
  }

  /** Watches the path unless it is watched already. */
  watch(): void {
    if (this.watcher) return;
    try {
      this.watcher = watch(this.path, { persistent: false }, () => {
        this.seen = true;
      });
      this.watcher.on('error', () => {
        this.seen = true;
        this.close();
      });
    } catch {
      this.watcher = undefined;
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
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
  private readonly report: ChangeReport;

  constructor(
    readonly path: string,
    private readonly watching: () => boolean,
  ) {
    this.report = new ChangeReport(path);
  }

  /** True when the file may differ from what was read after the last markRead(). */
  changed(): boolean {
    return this.report.reported || fileSignature(this.path) !== this.signature;
  }

  /** Call right before reading the file: a change during the read is then seen by the next check. */
  markRead(): void {
    // A new watch each read: an editor's atomic replace leaves the old one on the old file.
    this.report.close();
    this.report.reset();
    this.signature = fileSignature(this.path);
    if (this.signature !== 'absent' && this.watching()) this.report.watch();
  }

  close(): void {
    this.report.close();
  }
}
