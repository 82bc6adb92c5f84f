import { copyFile, lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isInside } from '../files/path-inside.js';
import {
  checkCopyFileEntry,
  validateCopyFileEntries,
  type CopyFileEntry,
  type CopyFileEntryProblem,
} from '../../config/copy-file-entries.js';

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

export type { CopyFileEntry, CopyFileEntryProblem };
export { validateCopyFileEntries };

export interface CopyResult {
  /** Destinations (relative to the worktree) of the entries copied, `.cairn` included. */
  copied: string[];
  /** Entries whose source does not exist in the source checkout. */
  skipped: Array<{ entry: string; reason: 'source_missing' }>;
  /** Every file written, relative to the worktree. */
  files: string[];
}

/** `path` or `<src> -> <dest>` (spaces around the arrow optional); throws CopyFilesError. */
export function parseCopyFileEntry(entry: string): CopyFileEntry {
  const check = checkCopyFileEntry(entry);
  if (!check.ok) throw new CopyFilesError(check.code, check.entry, check.problem);
  return { entry: check.entry, source: check.source, destination: check.destination };
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
