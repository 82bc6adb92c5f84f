import { isAbsolute, posix } from 'node:path';

/** One worktree.copyFiles entry, understood: paths relative to the repository / worktree root. */
export interface CopyFileEntry {
  entry: string;
  source: string;
  destination: string;
}

export type CopyFileEntryCheck =
  | ({ ok: true } & CopyFileEntry)
  | { ok: false; entry: string; code: 'invalid_entry' | 'escapes_repository'; problem: string };

/** A relative path that stays inside the repository, normalized; or why it is refused. */
function checkRelativePath(path: string): { path: string } | { problem: string } {
  if (path.length === 0) return { problem: 'path is empty' };
  if (path.includes('\0')) return { problem: 'path contains a NUL byte' };
  if (isAbsolute(path) || posix.isAbsolute(path) || /^[a-zA-Z]:[\\/]/.test(path)) {
    return { problem: 'absolute paths are not allowed; paths are relative to the repository root' };
  }
  if (path.startsWith('~')) return { problem: 'home-relative paths are not allowed' };
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..'))
    return { problem: '".." is not allowed; paths must stay inside the repository' };
  if (segments.length === 0) return { problem: 'path names the repository root itself' };
  if (segments[0] === '.git') return { problem: 'paths inside .git are not allowed' };
  return { path: segments.join('/') };
}

/** `path` or `<src> -> <dest>` (spaces around the arrow optional). Pure: nothing is read. */
export function checkCopyFileEntry(entry: unknown): CopyFileEntryCheck {
  if (typeof entry !== 'string') {
    return { ok: false, entry: String(entry), code: 'invalid_entry', problem: 'entries must be strings' };
  }
  const parts = entry.split(/\s*->\s*/).map((part) => part.trim());
  if (parts.length > 2) return { ok: false, entry, code: 'invalid_entry', problem: 'use at most one "->"' };
  const [rawSource = '', rawDestination = rawSource] = parts;
  const source = checkRelativePath(rawSource);
  if ('problem' in source)
    return { ok: false, entry, code: 'escapes_repository', problem: `source: ${source.problem}` };
  const destination = checkRelativePath(rawDestination);
  if ('problem' in destination) {
    return { ok: false, entry, code: 'escapes_repository', problem: `destination: ${destination.problem}` };
  }
  return { ok: true, entry, source: source.path, destination: destination.path };
}

export interface CopyFileEntryProblem {
  entry: string;
  problem: string;
}

/** Every problem of a copyFiles list; empty when all entries are fine. */
export function validateCopyFileEntries(entries: readonly unknown[]): CopyFileEntryProblem[] {
  return entries
    .map(checkCopyFileEntry)
    .flatMap((check) => (check.ok ? [] : [{ entry: check.entry, problem: check.problem }]));
}
