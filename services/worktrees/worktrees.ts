import { isUniqueViolation } from '../../db/rows.js';
import { mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/connection.js';
import {
  createEnvironment,
  findActiveEnvironment,
  findEnvironmentBeingRemoved,
  markEnvironmentDestroyed,
  touchEnvironment,
  type EnvironmentKind,
  type IsolationEnvironment,
} from '../../db/repositories/isolation-environments.js';
import {
  gitOptions,
  hasOrigin,
  resolveBaseBranch,
  type GitAuth,
  type ResolvedBaseBranch,
} from '../../infra/git/base-branch.js';
import { environmentBranch, worktreeDirName } from './branch-names.js';
import { copyIntoWorktree, parseCopyFileEntry, type CopyResult } from '../../infra/git/copy-files.js';
import { withKeyLock } from '../../infra/git/key-lock.js';
import { gitSucceeds, runGit } from '../../infra/git/run-git.js';
import { uncommittedChanges, writeCopyManifest } from '../../infra/git/worktree-status.js';

export type WorktreeErrorCode = 'path_occupied';

export class WorktreeError extends Error {
  override readonly name = 'WorktreeError';
  constructor(
    readonly code: WorktreeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface EnsureWorktreeInput extends GitAuth {
  db: Database;
  codebaseId: string;
  /** The codebase's source checkout (`<workspace>/source`, a clone or a link to a local path). */
  sourcePath: string;
  /** `<workspace>/worktrees`. */
  worktreesRoot: string;
  kind: EnvironmentKind;
  key: string;
  /** worktree.baseBranch. */
  configuredBaseBranch?: string;
  /** Whether the workflow references `$BASE_BRANCH` (spec rule 3c). */
  usesBaseBranchVariable?: boolean;
  /** worktree.copyFiles. */
  copyFiles?: readonly string[];
  /**
   * A commit a new worktree starts from instead of the base branch (a pull request's head,
   * already fetched); the base branch is still resolved and recorded.
   */
  startFrom?: string;
  /** The worktree will hold code from outside the repository (a fork's pull request). */
  untrusted?: boolean;
  logger?: Logger;
  signal?: AbortSignal;
  /**
   * How long to wait for another process's cleanup that is removing this key's worktree before
   * taking its record as abandoned (a crashed worker); default one minute.
   */
  removalWaitMs?: number;
}

export interface EnsureWorktreeResult {
  environment: IsolationEnvironment;
  /** True when no new worktree was made: an active environment (or its folder) already existed. */
  adopted: boolean;
  /** How the start point was chosen; absent when an active environment was adopted as is. */
  baseBranch?: ResolvedBaseBranch;
  /** What was copied in; absent when an active environment was adopted as is. */
  copy?: CopyResult;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function commonDir(path: string): Promise<string> {
  const dir = (await runGit(['rev-parse', '--git-common-dir'], { cwd: path })).trim();
  return realpath(isAbsolute(dir) ? dir : resolve(path, dir));
}

/** Whether `path` is the top of a worktree belonging to the repository at `sourcePath`. */
export async function isWorktreeOf(path: string, sourcePath: string): Promise<boolean> {
  if (!(await isDirectory(path))) return false;
  try {
    const top = (await runGit(['rev-parse', '--show-toplevel'], { cwd: path })).trim();
    if ((await realpath(top)) !== (await realpath(path))) return false;
    return (await commonDir(path)) === (await commonDir(sourcePath));
  } catch {
    return false;
  }
}

async function adoptActive(db: Database, environment: IsolationEnvironment): Promise<IsolationEnvironment> {
  await touchEnvironment(db.knex, environment.id);
  return (
    (await findActiveEnvironment(db.knex, environment.codebaseId, environment.kind, environment.key)) ??
    environment
  );
}

/** The commit-ish a new branch starts from, fetched fresh when it comes from the remote. */
async function startPoint(
  input: EnsureWorktreeInput,
  source: string,
  base: ResolvedBaseBranch,
): Promise<string> {
  if (!base.branch) {
    // No base branch and the workflow does not need one: start where the source checkout is.
    return (await runGit(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: source })).trim();
  }
  if (!(await hasOrigin(source))) return `refs/heads/${base.branch}`;
  // An explicit refspec works whatever the clone's fetch config (single-branch clones included).
  const tracking = `refs/remotes/origin/${base.branch}`;
  await runGit(
    [
      ...(input.authArgs ?? []),
      'fetch',
      '--quiet',
      '--no-tags',
      'origin',
      `+refs/heads/${base.branch}:${tracking}`,
    ],
    { ...gitOptions(source, input, input.signal), timeoutMs: 600_000 },
  );
  return tracking;
}

interface Prepared {
  base: ResolvedBaseBranch;
  /** Whether this call made the worktree (and so must remove it if the rest fails). */
  createdWorktree: boolean;
  createdBranch: boolean;
}

/**
 * Makes the worktree folder, or finds one left by a crash or by another process racing us for
 * the same key (paths are deterministic, so it can only be this environment's).
 */
async function prepareWorktree(
  input: EnsureWorktreeInput,
  source: string,
  path: string,
  branch: string,
): Promise<Prepared> {
  const base = await resolveBaseBranch({
    repoPath: source,
    configuredBaseBranch: input.configuredBaseBranch,
    usesBaseBranchVariable: input.usesBaseBranchVariable ?? false,
    authArgs: input.authArgs,
    credentials: input.credentials,
    signal: input.signal,
  });
  if (await isWorktreeOf(path, source)) return { base, createdWorktree: false, createdBranch: false };
  if ((await isDirectory(path)) && (await readdir(path)).length > 0) {
    throw new WorktreeError(
      'path_occupied',
      `cannot create the worktree at ${path}: the folder exists, is not empty and is not a worktree of ${source}`,
    );
  }
  const from = input.startFrom ?? (await startPoint(input, source, base));
  // A branch left by an earlier environment with this key (folder removed, branches are kept) is
  // checked out again, so its work continues rather than being shadowed by a fresh branch.
  const branchExists = await gitSucceeds(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
    cwd: source,
  });
  try {
    if (branchExists) await runGit(['worktree', 'add', '--quiet', path, branch], { cwd: source });
    // --no-track: the branch must not push to (or pull from) the base branch by default.
    else
      await runGit(['worktree', 'add', '--quiet', '--no-track', '-b', branch, path, from], { cwd: source });
  } catch (error) {
    // Another process may have made it between our check and our add.
    if (await isWorktreeOf(path, source)) return { base, createdWorktree: false, createdBranch: false };
    throw error;
  }
  return { base, createdWorktree: true, createdBranch: !branchExists };
}

async function discardWorktree(
  source: string,
  path: string,
  branch: string,
  prepared: Prepared,
): Promise<void> {
  if (prepared.createdWorktree) {
    await runGit(['worktree', 'remove', '--force', path], { cwd: source }).catch(() => undefined);
    await runGit(['worktree', 'prune'], { cwd: source }).catch(() => undefined);
  }
  // Only a branch this call made is deleted; it holds no commits of anyone's.
  if (prepared.createdBranch) await runGit(['branch', '-D', branch], { cwd: source }).catch(() => undefined);
}

const REMOVAL_POLL_MS = 100;
const DEFAULT_REMOVAL_WAIT_MS = 60_000;

/**
 * A worktree another process's cleanup has claimed is going away: it is neither adopted nor
 * rebuilt on (its folder is being deleted) until that removal finishes.
 */
async function waitForRemovalInProgress(input: EnsureWorktreeInput): Promise<void> {
  const { db, codebaseId, kind, key, logger } = input;
  const deadline = Date.now() + (input.removalWaitMs ?? DEFAULT_REMOVAL_WAIT_MS);
  let claimed = await findEnvironmentBeingRemoved(db.knex, codebaseId, kind, key);
  if (!claimed) return;
  logger?.info({ environmentId: claimed.id, path: claimed.path }, 'worktree.waiting_for_removal');
  while (claimed && Date.now() < deadline) {
    await sleep(REMOVAL_POLL_MS, undefined, { signal: input.signal });
    claimed = await findEnvironmentBeingRemoved(db.knex, codebaseId, kind, key);
  }
  if (claimed) {
    // Its remover died half way: the record is history, and the folder is rebuilt or recovered.
    await markEnvironmentDestroyed(db.knex, claimed.id);
    logger?.warn({ environmentId: claimed.id, path: claimed.path }, 'worktree.removal_abandoned');
  }
}

async function ensureLocked(input: EnsureWorktreeInput, source: string): Promise<EnsureWorktreeResult> {
  const { db, codebaseId, kind, key, logger } = input;
  await waitForRemovalInProgress(input);
  const existing = await findActiveEnvironment(db.knex, codebaseId, kind, key);
  if (existing) {
    if (await isWorktreeOf(existing.path, source)) {
      const environment = await adoptActive(db, existing);
      logger?.debug({ environmentId: environment.id, path: environment.path }, 'worktree.adopted');
      return { environment, adopted: true };
    }
    // The folder was deleted behind our back: the record is history, a new worktree replaces it.
    await markEnvironmentDestroyed(db.knex, existing.id);
    logger?.warn({ environmentId: existing.id, path: existing.path }, 'worktree.vanished');
  }
  // Forget worktrees whose folders are gone, so their branches can be checked out again.
  await runGit(['worktree', 'prune'], { cwd: source });

  const branch = environmentBranch(kind, key);
  const path = join(input.worktreesRoot, worktreeDirName(kind, key));
  await mkdir(input.worktreesRoot, { recursive: true });
  const prepared = await prepareWorktree(input, source, path, branch);

  let copy: CopyResult;
  let environment: IsolationEnvironment;
  try {
    // Nothing of the checkout's own (local files may hold secrets) goes next to untrusted code.
    copy = input.untrusted
      ? { copied: [], skipped: [], files: [] }
      : await copyIntoWorktree({ sourceRoot: source, worktreeRoot: path, entries: input.copyFiles });
    await writeCopyManifest(path, copy.files);
    environment = await createEnvironment(db.knex, {
      codebaseId,
      kind,
      key,
      branch,
      path,
      baseBranch: prepared.base.branch ?? null,
      untrusted: input.untrusted ?? false,
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      // Another process recorded this environment first: its record wins.
      const winner = await findActiveEnvironment(db.knex, codebaseId, kind, key);
      if (winner) {
        if (winner.path !== path) await discardWorktree(source, path, branch, prepared);
        return { environment: await adoptActive(db, winner), adopted: true };
      }
    }
    await discardWorktree(source, path, branch, prepared);
    throw error;
  }
  logger?.info(
    { environmentId: environment.id, kind, branch, path, baseBranch: prepared.base.branch ?? null },
    prepared.createdWorktree ? 'worktree.created' : 'worktree.recovered',
  );
  return { environment, adopted: !prepared.createdWorktree, baseBranch: prepared.base, copy };
}

/**
 * The isolation environment for (codebase, kind, key): the active one when its worktree is
 * still there, otherwise a new worktree on the environment's deterministic branch, started
 * from the base branch (spec rule 3) and given `.cairn/` plus worktree.copyFiles (rule 1).
 * Calls for one repository take turns in this process; across processes the database's
 * one-active-environment index decides and the loser adopts the winner's record.
 */
export async function ensureWorktree(input: EnsureWorktreeInput): Promise<EnsureWorktreeResult> {
  // Refuse bad entries before anything is made.
  for (const entry of input.copyFiles ?? []) parseCopyFileEntry(entry);
  return withRepositoryLock(input.sourcePath, (source) => ensureLocked(input, source));
}

/**
 * Runs `task` with the repository's lock held (operations on one repository take turns in this
 * process), giving it the source checkout's real path.
 */
export async function withRepositoryLock<T>(
  sourcePath: string,
  task: (source: string) => Promise<T>,
): Promise<T> {
  const source = await realpath(sourcePath);
  return withKeyLock(`repo:${source}`, () => task(source));
}

export interface RemoveWorktreeInput {
  db: Database;
  environment: IsolationEnvironment;
  sourcePath: string;
  /** Remove even with uncommitted changes (they are lost). */
  force?: boolean;
  logger?: Logger;
}

export type RemoveWorktreeResult =
  { removed: true } | { removed: false; reason: 'uncommitted_changes'; changes: string[] };

/**
 * Removes an environment's worktree and marks its record destroyed. Refuses when work would be
 * lost, unless forced. The branch is kept: it may hold commits not pushed or merged anywhere,
 * and a later environment with the same key checks it out again.
 */
export async function removeWorktree(input: RemoveWorktreeInput): Promise<RemoveWorktreeResult> {
  return withRepositoryLock(input.sourcePath, (source) => removeWorktreeLocked(input, source));
}

/** removeWorktree for a caller already holding the repository's lock (see withRepositoryLock). */
export async function removeWorktreeLocked(
  input: Omit<RemoveWorktreeInput, 'sourcePath'>,
  source: string,
): Promise<RemoveWorktreeResult> {
  const { db, environment, logger } = input;
  if (await isWorktreeOf(environment.path, source)) {
    const changes = await uncommittedChanges(environment.path);
    if (changes.length > 0 && !input.force) {
      logger?.info({ environmentId: environment.id, changes: changes.length }, 'worktree.remove_refused');
      return { removed: false, reason: 'uncommitted_changes', changes };
    }
    // --force: our own check above decided; git would also refuse for the copied-in files.
    await runGit(['worktree', 'remove', '--force', environment.path], { cwd: source });
  }
  // A folder that is not a worktree of this repository is never deleted, only forgotten.
  await runGit(['worktree', 'prune'], { cwd: source });
  await markEnvironmentDestroyed(db.knex, environment.id);
  logger?.info({ environmentId: environment.id, path: environment.path }, 'worktree.removed');
  return { removed: true };
}
