import { existsSync, lstatSync, readlinkSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { findCodebaseByRepositoryKey } from '../../db/repositories/codebases.js';
import { localIdentity } from '../../domain/codebases/repository-identity.js';
import { currentBranch } from '../../infra/git/base-branch.js';
import { gitOutputOrUndefined } from '../../infra/git/run-git.js';
import { checkEnvLeakGate } from './env-gate-check.js';
import { RegistrationError, type RegistrationOutcome } from './registration-outcome.js';
import type { ServiceContext } from '../context.js';
import { storeCodebase } from './store-codebase.js';
import { createWorkspaceFolders } from './workspace.js';
import { releaseWorkspace, reserveWorkspace } from './workspace-reservation.js';

const askGit = (cwd: string, args: string[]) => gitOutputOrUndefined(args, { cwd, timeoutMs: 15_000 });

/** The top of the git checkout at `path`, or a RegistrationError saying why there is none. */
async function checkoutRoot(path: string): Promise<string> {
  if (!isAbsolute(path)) throw new RegistrationError('path_not_found', `path must be absolute, got ${path}`);
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new RegistrationError('path_not_found', `${path} does not exist or is not a directory`);
  }
  if ((await askGit(path, ['rev-parse', '--is-bare-repository'])) === 'true') {
    throw new RegistrationError(
      'bare_repository',
      `${path} is a bare repository; register it by URL instead ({"url": "file://${path}"}) so Cairn clones a working copy`,
    );
  }
  const top = await askGit(path, ['rev-parse', '--show-toplevel']);
  if (!top) throw new RegistrationError('not_a_git_repository', `${path} is not inside a git repository`);
  return realpathSync(top);
}

function conflict(sourceLink: string, target: string): RegistrationError {
  return new RegistrationError(
    'workspace_conflict',
    `${sourceLink} already exists and does not link to ${target}; move it away and register again`,
  );
}

/** `source/` links to the user's checkout; an existing link to the same place is kept. */
function linkSource(sourceLink: string, target: string): void {
  const linksToTarget = () =>
    lstatSync(sourceLink).isSymbolicLink() && resolve(readlinkSync(sourceLink)) === target;
  try {
    symlinkSync(target, sourceLink, 'dir');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // An earlier or concurrent registration of the same path made the same link.
    if (!linksToTarget()) throw conflict(sourceLink, target);
  }
}

/** Registers a local checkout by path: nothing is copied, `source/` links to it. */
export async function registerLocalPath(
  context: ServiceContext,
  input: { path: string; allowEnvKeys: boolean; name?: string },
): Promise<RegistrationOutcome> {
  const root = await checkoutRoot(input.path);
  const identity = { ...localIdentity(root), key: `path:${root}` };
  const existing = await findCodebaseByRepositoryKey(context.db.knex, identity.key);
  if (existing) return { outcome: 'registered', codebase: existing, created: false };

  const gate = await checkEnvLeakGate(context, root, input.allowEnvKeys);
  if (!gate.allowed) return { outcome: 'blocked', scan: gate.scan, checkedPath: root };

  const reservation = await reserveWorkspace(identity, context.workspacesRoot);
  const { workspace } = reservation;
  try {
    linkSource(workspace.source, root);
  } catch (error) {
    await releaseWorkspace(reservation);
    throw error;
  }
  createWorkspaceFolders(workspace);
  const stored = await storeCodebase(context.db.knex, identity, {
    url: null,
    localPath: root,
    sourcePath: workspace.source,
    defaultBranch: (await currentBranch(root)) ?? null,
    allowEnvKeys: input.allowEnvKeys,
    name: input.name,
  });
  return { outcome: 'registered', ...stored };
}
