import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GitError, gitOutputOrUndefined, runGit } from './run-git.js';
import { isUnchangedCopy, readCopyManifest } from './worktree-status.js';

export type ChangedFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface ChangedFile {
  path: string;
  /** A renamed file's path before. */
  oldPath: string | null;
  status: ChangedFileStatus;
  additions: number;
  deletions: number;
  /** git shows no lines for a binary file: its counts are 0. */
  binary: boolean;
}

export interface WorktreeDiff {
  /** The commit the worktree's branch and the base have in common, which the diff starts from. */
  mergeBase: string;
  /** The commit the worktree is at. */
  head: string;
  files: ChangedFile[];
  /** Unified diff text, cut at a line end once over `maxPatchBytes`. */
  patch: string;
  /** The patch (or the file list) was cut. */
  truncated: boolean;
}

export interface WorktreeDiffOptions {
  /** Bytes of patch kept; the rest is cut at the last line end before it. */
  maxPatchBytes: number;
  /** Files listed at most. */
  maxFiles: number;
  timeoutMs?: number;
}

const STATUS_LETTERS: Record<string, ChangedFileStatus> = { A: 'added', D: 'deleted', R: 'renamed' };

/** Which diff options: renames found, no colour or external tool, prefixes whatever the user's config says. */
const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--find-renames', '--src-prefix=a/', '--dst-prefix=b/'];

/**
 * `--name-status -z` and `--numstat -z`, read together: one entry per file with its status and
 * line counts. A rename's fields carry the old path before the new.
 */
function parseChangedFiles(nameStatus: string, numstat: string): ChangedFile[] {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  const numFields = numstat.split('\0');
  for (let i = 0; i < numFields.length; i++) {
    const [added, deleted, inlinePath] = (numFields[i] ?? '').split('\t');
    if (added === undefined || deleted === undefined || inlinePath === undefined) continue;
    // A rename's line ends with an empty path; the old and new paths follow as fields of their own.
    const path = inlinePath === '' ? (numFields[(i += 2)] ?? '') : inlinePath;
    const binary = added === '-';
    counts.set(path, {
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      binary,
    });
  }
  const files: ChangedFile[] = [];
  const fields = nameStatus.split('\0');
  for (let i = 0; i + 1 < fields.length; i++) {
    const letter = (fields[i] ?? '').charAt(0);
    if (!letter) continue;
    const status = STATUS_LETTERS[letter] ?? 'modified';
    const renamed = letter === 'R' || letter === 'C';
    const oldPath = renamed ? (fields[++i] ?? '') : null;
    const path = fields[++i] ?? '';
    const count = counts.get(path) ?? { additions: 0, deletions: 0, binary: false };
    files.push({ path, oldPath: letter === 'R' ? oldPath : null, status, ...count });
  }
  return files;
}

/** The patch up to `max` bytes, cut at a line end. */
function capPatch(patch: string, max: number): { patch: string; truncated: boolean } {
  if (Buffer.byteLength(patch) <= max) return { patch, truncated: false };
  const head = Buffer.from(patch).subarray(0, max).toString('utf8');
  const end = head.lastIndexOf('\n');
  return { patch: end >= 0 ? head.slice(0, end + 1) : '', truncated: true };
}

/** The untracked files of the worktree (ignored ones left out), without those Cairn copied in untouched. */
async function untrackedFiles(worktreePath: string, timeoutMs: number): Promise<string[]> {
  const listing = await runGit(['ls-files', '--others', '--exclude-standard', '-z'], {
    cwd: worktreePath,
    timeoutMs,
  });
  const copied = await readCopyManifest(worktreePath);
  const files: string[] = [];
  for (const path of listing.split('\0')) {
    if (path && !(await isUnchangedCopy(worktreePath, path, copied))) files.push(path);
  }
  return files;
}

/**
 * What a worktree changed since it left `baseRef`: its commits, its uncommitted changes and its
 * untracked files, against the merge-base of its HEAD and `baseRef`. The worktree's own index is
 * never touched: the untracked files are marked intent-to-add in a copy of it, so `git diff`
 * shows them as new files without writing anything to the repository.
 */
export async function worktreeDiff(
  worktreePath: string,
  baseRef: string,
  options: WorktreeDiffOptions,
): Promise<WorktreeDiff> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const head = (await runGit(['rev-parse', 'HEAD'], { cwd: worktreePath, timeoutMs })).trim();
  const mergeBase = (await runGit(['merge-base', baseRef, head], { cwd: worktreePath, timeoutMs })).trim();
  const scratch = await mkdtemp(join(tmpdir(), 'cairn-diff-'));
  try {
    const index = join(scratch, 'index');
    const realIndex = (await runGit(['rev-parse', '--git-path', 'index'], { cwd: worktreePath })).trim();
    await copyFile(resolve(worktreePath, realIndex), index).catch(async () => {
      // No index yet (nothing was ever staged): start from the worktree's HEAD.
      await runGit(['read-tree', 'HEAD'], { cwd: worktreePath, env: { GIT_INDEX_FILE: index } });
    });
    const git = (args: string[]) =>
      runGit(args, { cwd: worktreePath, timeoutMs, env: { GIT_INDEX_FILE: index } });
    const untracked = await untrackedFiles(worktreePath, timeoutMs);
    if (untracked.length > 0) {
      const list = join(scratch, 'untracked');
      await writeFile(list, `${untracked.join('\0')}\0`);
      // Literal pathspecs: a file named `:(glob)*` is that file, not a pattern.
      await git([
        '--literal-pathspecs',
        'add',
        '--intent-to-add',
        `--pathspec-from-file=${list}`,
        '--pathspec-file-nul',
      ]);
    }
    const nameStatus = await git(['diff', ...DIFF_FLAGS, '--name-status', '-z', mergeBase]);
    const numstat = await git(['diff', ...DIFF_FLAGS, '--numstat', '-z', mergeBase]);
    const all = parseChangedFiles(nameStatus, numstat);
    const files = all.slice(0, options.maxFiles);
    const full = await git(['diff', ...DIFF_FLAGS, mergeBase]).catch((error: unknown) => {
      // Over git's output limit: far over the cap, so nothing of it is shown.
      if (error instanceof GitError && error.exitCode === null && /output over/.test(error.message))
        return undefined;
      throw error;
    });
    const capped =
      full === undefined ? { patch: '', truncated: true } : capPatch(full, options.maxPatchBytes);
    return {
      mergeBase,
      head,
      files,
      patch: capped.patch,
      truncated: capped.truncated || all.length > files.length,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The ref a worktree's base branch is known by in the repository: the remote-tracking branch
 * that worktrees start from when there is an `origin`, else the local branch. Undefined when
 * neither exists.
 */
export async function baseBranchRef(worktreePath: string, branch: string): Promise<string | undefined> {
  for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) {
    const found = await gitOutputOrUndefined(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      cwd: worktreePath,
    });
    if (found) return ref;
  }
  return undefined;
}
