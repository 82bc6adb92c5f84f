import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { findCodebaseByRepositoryKey } from '../../db/repositories/codebases.js';
import { redactUrl } from '../../domain/codebases/repository-identity.js';
import { gitCredentialsForUrl, scrubCredentials } from '../../infra/git/credentials.js';
import { currentBranch } from '../../infra/git/base-branch.js';
import { GitError, runGit } from '../../infra/git/run-git.js';
import { checkEnvLeakGate } from './env-gate-check.js';
import { identityForUrl } from './identity-for-url.js';
import { RegistrationError, type RegistrationOutcome } from './registration-outcome.js';
import type { ServiceContext } from '../context.js';
import { storeCodebase } from './store-codebase.js';
import { createWorkspaceFolders } from './workspace.js';
import { releaseWorkspace, reserveWorkspace, type Reservation } from './workspace-reservation.js';

export interface CloneInput {
  url: string;
  allowEnvKeys: boolean;
  name?: string;
}

export interface CloneHooks {
  signal?: AbortSignal;
  /** Called while git runs, so a long clone keeps its activity alive. */
  heartbeat?: () => void;
}

// Failures worth another attempt: the network, not the request.
const TRANSIENT =
  /timed out|connection reset|could not resolve host|early eof|rpc failed|the remote end hung up|50[234]/i;

export class CloneFailure extends Error {
  override name = 'CloneFailure';
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** Moves the checked clone into `source/`; false when one is there already (never replaced). */
async function moveIntoPlace(staging: string, source: string): Promise<boolean> {
  try {
    await rename(staging, source);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw error;
  }
}

async function cloneInto(
  staging: string,
  input: CloneInput,
  context: ServiceContext,
  hooks: CloneHooks,
): Promise<void> {
  const credentials = await gitCredentialsForUrl(input.url, context.environment);
  const scrub = (text: string) => scrubCredentials(text, credentials.secrets);
  const ticker = hooks.heartbeat ? setInterval(hooks.heartbeat, 5_000) : undefined;
  try {
    await runGit(['clone', '--quiet', '--', input.url, staging], {
      cwd: dirname(staging),
      env: {
        ...credentials.env,
        GIT_TERMINAL_PROMPT: '0',
        GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
        // Transports a user-supplied URL may use; remote helpers like ext:: stay off.
        GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
      },
      signal: hooks.signal,
      scrub,
    });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const message = scrub(
      `git clone of ${redactUrl(input.url)} failed: ${error.stderr.trim() || error.message}`,
    );
    throw new CloneFailure(message, TRANSIENT.test(error.stderr));
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

/**
 * Reserves the workspace folder, clones into a staging folder inside it, runs the env-leak gate
 * on the clone, then moves it to `source/` and records the codebase. A blocked or failed clone
 * leaves nothing behind. Safe to repeat: a registered repository is returned as it is.
 */
export async function cloneAndRegister(
  context: ServiceContext,
  input: CloneInput,
  hooks: CloneHooks = {},
): Promise<RegistrationOutcome> {
  const identity = identityForUrl(input.url);
  const existing = await findCodebaseByRepositoryKey(context.db.knex, identity.key);
  if (existing) return { outcome: 'registered', codebase: existing, created: false };

  const reservation = await reserveWorkspace(identity, context.workspacesRoot);
  const { workspace } = reservation;
  // One registration of a repository runs at a time (its workflow id is the repository's), and
  // an earlier attempt's git was killed before this attempt began: a staging folder here is
  // what a killed worker left.
  await removeStagingFolders(workspace.root);
  // Inside the workspace, so the final rename stays on one file system and is atomic.
  const staging = await mkdtemp(join(workspace.root, STAGING_PREFIX));
  try {
    await cloneInto(staging, input, context, hooks);
    if (identity.displayUrl && identity.displayUrl !== input.url) {
      // Credentials typed into the URL must not stay in the clone's .git/config.
      await runGit(['remote', 'set-url', 'origin', identity.displayUrl], { cwd: staging });
    }
    const gate = await checkEnvLeakGate(context, staging, input.allowEnvKeys);
    if (!gate.allowed) {
      await discard(staging, reservation);
      return { outcome: 'blocked', scan: gate.scan, checkedPath: redactUrl(input.url) };
    }
    // A registration of this same repository that got there first keeps its clone.
    if (!(await moveIntoPlace(staging, workspace.source)))
      await rm(staging, { recursive: true, force: true });
  } catch (error) {
    await discard(staging, reservation);
    throw error;
  }
  createWorkspaceFolders(workspace);
  const stored = await storeCodebase(context.db.knex, identity, {
    url: identity.displayUrl ?? redactUrl(input.url),
    localPath: null,
    sourcePath: workspace.source,
    defaultBranch: (await currentBranch(workspace.source)) ?? null,
    allowEnvKeys: input.allowEnvKeys,
    name: input.name,
  });
  return { outcome: 'registered', ...stored };
}

const STAGING_PREFIX = '.source-staging-';

async function removeStagingFolders(root: string): Promise<void> {
  const entries = await readdir(root).catch(() => []);
  for (const entry of entries)
    if (entry.startsWith(STAGING_PREFIX)) await rm(join(root, entry), { recursive: true, force: true });
}

async function discard(staging: string, reservation: Reservation): Promise<void> {
  await rm(staging, { recursive: true, force: true });
  await releaseWorkspace(reservation);
}

export { RegistrationError };
