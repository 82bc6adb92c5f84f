import { copyFile, lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { isInside } from '../codebases/path-inside.js';

/** Spec rule 1: the service's own folder goes into every new worktree, tracked or not. */
export const SERVICE_FOLDER = '.cairn';

export type CopyFilesErrorCode =
  'invalid_entry' | 'escapes_repository' | 'symlink_loop' | 'destination_conflict';

export class CopyFilesError extends Error {
  override readonly name = 'CopyFilesError';
  constructor(
    readonly code: CopyFilesErrorCode,
    /** The worktree.copyFiles entry at fault, as written. */
    readonly entry: string,
    detail: string,
  ) {
    super(`worktree.copyFiles entry "${entry}": ${detail}`);
  }
}

export interface CopyFileEntry {
  entry: string;
  /** Normalized path relative to the repository root. */
  source: string;
  /** Normalized path relative to the worktree root. */
  destination: string;
}

export interface CopyFileEntryProblem {
  entry: string;
  problem: string;
}

export interface CopyResult {
  /** Destinations (relative to the worktree) of the entries copied, `.cairn` included. */
  copied: string[];
  /** Entries whose source does not exist in the source checkout. */
  skipped: Array<{ entry: string; reason: 'source_missing' }>;
  /** Every file written, relative to the worktree. */
  files: string[];
}

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

/** `path` or `<src> -> <dest>` (spaces around the arrow optional); throws CopyFilesError. */
export function parseCopyFileEntry(entry: string): CopyFileEntry {
  if (typeof entry !== 'string')
    throw new CopyFilesError('invalid_entry', String(entry), 'entries must be strings');
  const parts = entry.split(/\s*->\s*/).map((part) => part.trim());
  if (parts.length > 2) throw new CopyFilesError('invalid_entry', entry, 'use at most one "->"');
  const [rawSource = '', rawDestination = rawSource] = parts;
  const source = checkRelativePath(rawSource);
  if ('problem' in source) throw new CopyFilesError('escapes_repository', entry, `source: ${source.problem}`);
  const destination = checkRelativePath(rawDestination);
  if ('problem' in destination) {
    throw new CopyFilesError('escapes_repository', entry, `destination: ${destination.problem}`);
  }
  return { entry, source: source.path, destination: destination.path };
}

/** Pure check for config loading and the API: every problem, empty when all entries are fine. */
export function validateCopyFileEntries(entries: readonly unknown[]): CopyFileEntryProblem[] {
  const problems: CopyFileEntryProblem[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') {
      problems.push({ entry: String(entry), problem: 'entries must be strings' });
      continue;
    }
    try {
      parseCopyFileEntry(entry);
    } catch (error) {
      if (!(error instanceof CopyFilesError)) throw error;
      problems.push({ entry, problem: error.message });
    }
  }
  return problems;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

type Operation = { type: 'dir'; to: string } | { type: 'file'; from: string; to: string };

interface Plan {
  sourceRoot: string;
  worktreeRoot: string;
  operations: Operation[];
}

/**
 * A destination is written only where the nearest existing part of its path resolves inside the
 * worktree: a symlink checked into the repository (or a dangling one) cannot redirect the copy.
 */
async function assertDestinationInside(plan: Plan, entry: string, destination: string): Promise<void> {
  let existing = destination;
  while (!(await lstatOrUndefined(existing))) existing = dirname(existing);
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    throw new CopyFilesError('escapes_repository', entry, `destination ${existing} is a dangling symlink`);
  }
  if (!isInside(plan.worktreeRoot, real, { orAt: true })) {
    throw new CopyFilesError(
      'escapes_repository',
      entry,
      `destination resolves outside the worktree (${real})`,
    );
  }
}

/** Resolves a source path; a symlink must land inside the source repository. */
async function resolveSource(plan: Plan, entry: string, path: string): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined; // missing, or a dangling symlink
    throw error;
  }
  if (!isInside(plan.sourceRoot, real)) {
    throw new CopyFilesError(
      'escapes_repository',
      entry,
      `${path} resolves outside the repository or to its root (${real})`,
    );
  }
  return real;
}

async function planNode(
  plan: Plan,
  entry: string,
  realSource: string,
  destination: string,
  overwrite: boolean,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  const info = await stat(realSource);
  const existing = await lstatOrUndefined(destination);
  if (info.isDirectory()) {
    if (ancestors.has(realSource)) {
      throw new CopyFilesError('symlink_loop', entry, `${realSource} contains a symlink to itself`);
    }
    if (existing && !existing.isDirectory() && !existing.isSymbolicLink()) {
      throw new CopyFilesError('destination_conflict', entry, `${destination} exists and is not a directory`);
    }
    await assertDestinationInside(plan, entry, destination);
    plan.operations.push({ type: 'dir', to: destination });
    const inner = new Set(ancestors).add(realSource);
    for (const name of (await readdir(realSource)).sort()) {
      const child = await resolveSource(plan, entry, join(realSource, name));
      if (child) await planNode(plan, entry, child, join(destination, name), overwrite, inner);
    }
    return;
  }
  if (!info.isFile()) return; // sockets, fifos and devices are not configuration
  if (existing?.isDirectory()) {
    throw new CopyFilesError('destination_conflict', entry, `${destination} exists and is a directory`);
  }
  if (existing && !overwrite) return;
  await assertDestinationInside(plan, entry, destination);
  plan.operations.push({ type: 'file', from: realSource, to: destination });
}

export interface CopyIntoWorktreeInput {
  /** The source checkout (the codebase's clone or linked local path). */
  sourceRoot: string;
  worktreeRoot: string;
  /** worktree.copyFiles. */
  entries?: readonly string[];
}

/**
 * Copies `.cairn/` and the copyFiles entries from the source checkout into a new worktree.
 * Everything is checked before anything is written, so a refused entry leaves no partial copy.
 * `.cairn/` never overwrites a file the worktree already has (the checked-out commit's version
 * wins and the worktree starts clean); explicit entries do overwrite.
 */
export async function copyIntoWorktree(input: CopyIntoWorktreeInput): Promise<CopyResult> {
  const parsed = (input.entries ?? []).map(parseCopyFileEntry);
  const plan: Plan = {
    sourceRoot: await realpath(input.sourceRoot),
    worktreeRoot: await realpath(input.worktreeRoot),
    operations: [],
  };
  const result: CopyResult = { copied: [], skipped: [], files: [] };
  const service: CopyFileEntry = {
    entry: SERVICE_FOLDER,
    source: SERVICE_FOLDER,
    destination: SERVICE_FOLDER,
  };
  for (const item of [service, ...parsed]) {
    const isService = item === service;
    const realSource = await resolveSource(plan, item.entry, join(plan.sourceRoot, item.source));
    if (!realSource) {
      if (!isService) result.skipped.push({ entry: item.entry, reason: 'source_missing' });
      continue;
    }
    const destination = join(plan.worktreeRoot, item.destination);
    await planNode(plan, item.entry, realSource, destination, !isService, new Set());
    result.copied.push(item.destination);
  }
  for (const operation of plan.operations) {
    if (operation.type === 'dir') {
      await mkdir(operation.to, { recursive: true });
    } else {
      await mkdir(dirname(operation.to), { recursive: true });
      await copyFile(operation.from, operation.to);
      result.files.push(relative(plan.worktreeRoot, operation.to).split(sep).join('/'));
    }
  }
  return result;
}
