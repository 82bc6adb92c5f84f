import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findCodebaseByRepositoryKey } from '../../db/repositories/codebases.js';
import { redactUrl } from '../../domain/codebases/repository-identity.js';
import { gitCredentialsFor, scrubCredentials } from '../git/credentials.js';
import { GitError, runGit } from '../git/run-git.js';
import { checkEnvLeakGate } from './env-gate-check.js';
import { identityForUrl } from './identity-for-url.js';
import {
  RegistrationError,
  type RegistrationContext,
  type RegistrationOutcome,
} from './registration-context.js';
import { chooseWorkspace, storeCodebase } from './store-codebase.js';
import { createWorkspaceFolders } from './workspace.js';

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

/**
 * Clones into a staging folder, runs the env-leak gate on it, then moves it to `source/` and
 * records the codebase. Safe to repeat: a registered repository is returned as it is, and a
 * staging folder left by a crashed attempt is replaced.
 */
export async function cloneAndRegister(
  context: RegistrationContext,
  input: CloneInput,
  hooks: CloneHooks = {},
): Promise<RegistrationOutcome> {
  const identity = identityForUrl(input.url);
  const existing = await findCodebaseByRepositoryKey(context.db.knex, identity.key);
  if (existing) return { outcome: 'registered', codebase: existing, created: false };

  const workspace = await chooseWorkspace(context.db.knex, identity, context.workspacesRoot);
  createWorkspaceFolders(workspace);
  const staging = join(workspace.root, '.source-staging');
  rmSync(staging, { recursive: true, force: true });
  const credentials = gitCredentialsFor(input.url, context.environment);
  const scrub = (text: string) => scrubCredentials(text, credentials.secrets);
  const ticker = hooks.heartbeat ? setInterval(hooks.heartbeat, 5_000) : undefined;
  try {
    await runGit(['clone', '--quiet', '--', input.url, staging], {
      cwd: workspace.root,
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
    rmSync(staging, { recursive: true, force: true });
    if (!(error instanceof GitError)) throw error;
    const message = scrub(
      `git clone of ${redactUrl(input.url)} failed: ${error.stderr.trim() || error.message}`,
    );
    throw new CloneFailure(message, TRANSIENT.test(error.stderr));
  } finally {
    if (ticker) clearInterval(ticker);
  }
  if (identity.displayUrl && identity.displayUrl !== input.url) {
    // Credentials typed into the URL must not stay in the clone's .git/config.
    await runGit(['remote', 'set-url', 'origin', identity.displayUrl], { cwd: staging });
  }

  const gate = await checkEnvLeakGate({
    checkout: staging,
    consent: input.allowEnvKeys,
    home: context.home,
    env: context.env,
    logger: context.logger,
  });
  if (!gate.allowed) {
    rmSync(staging, { recursive: true, force: true });
    return { outcome: 'blocked', scan: gate.scan, checkedPath: redactUrl(input.url) };
  }

  if (existsSync(workspace.source)) rmSync(workspace.source, { recursive: true, force: true });
  renameSync(staging, workspace.source);
  const branch = (
    await runGit(['symbolic-ref', '--short', 'HEAD'], { cwd: workspace.source }).catch(() => '')
  ).trim();
  const stored = await storeCodebase(context.db.knex, identity, {
    url: identity.displayUrl ?? redactUrl(input.url),
    localPath: null,
    sourcePath: workspace.source,
    defaultBranch: branch || null,
    allowEnvKeys: input.allowEnvKeys,
    name: input.name,
  });
  return { outcome: 'registered', ...stored };
}

export { RegistrationError };
