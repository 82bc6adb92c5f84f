import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ChangeReport, folderSignature } from './file-signature.js';

/**
 * How long a quiet watch is trusted before the folder's signature is compared again, for the
 * changes a watch does not report: a network filesystem, a parent folder renamed or replaced.
 */
export const WATCH_TRUSTED_MS = 1000;

/**
 * Resolves once the event loop has polled for I/O again. The kernel queues a watch's event while
 * the change is written, so after this every change made before the call has been reported.
 * Two turns: when called while the loop handles I/O, the first one ends that same turn, before
 * any new poll.
 */
export async function afterNextPoll(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A folder read at some moment, and whether it may have changed since: an OS watch tells of a
 * file added, edited, renamed or removed without a call per check; the folder's signature (its
 * entries' names, inodes, sizes and times) is compared instead where there is no watch (a
 * missing folder, a folder holding links, whose targets a watch does not follow, no watch left)
 * and once the watch has been trusted for WATCH_TRUSTED_MS. A listing then costs no call to the
 * filesystem in most requests, where it cost a stat per file and a directory read.
 */
export class FolderWatch {
  private signature = '';
  private checkedAt = 0;
  private readonly report: ChangeReport;

  constructor(
    readonly folder: string,
    private readonly trustedMs = WATCH_TRUSTED_MS,
  ) {
    this.report = new ChangeReport(folder);
  }

  /** Call right before reading the folder: a change during the read is seen by the next check. */
  markRead(): void {
    this.report.reset();
    this.signature = folderSignature(this.folder);
    this.checkedAt = performance.now();
    if (this.signature === 'absent' || holdsLinks(this.folder)) this.report.close();
    else this.report.watch();
  }

  /** True when the folder may differ from what was read after the last markRead(). */
  async changed(): Promise<boolean> {
    if (this.report.watching && performance.now() - this.checkedAt < this.trustedMs) {
      await afterNextPoll();
      return this.report.reported;
    }
    if (this.report.reported) return true;
    if (folderSignature(this.folder) !== this.signature) return true;
    this.checkedAt = performance.now();
    return false;
  }

  close(): void {
    this.report.close();
  }
}

function holdsLinks(folder: string): boolean {
  try {
    return readdirSync(folder, { withFileTypes: true }).some((entry) => entry.isSymbolicLink());
  } catch {
    return true;
  }
}
