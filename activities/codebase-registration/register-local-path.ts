import { existsSync, lstatSync, readlinkSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { findCodebaseByRepositoryKey } from '../../db/repositories/codebases.js';
import { localIdentity } from '../../domain/codebases/repository-identity.js';
import { runGit } from '../git/run-git.js';
import { checkEnvLeakGate } from './env-gate-check.js';
import {
  RegistrationError,
  type RegistrationContext,
  type RegistrationOutcome,
} from './registration-context.js';
import { chooseWorkspace, storeCodebase } from './store-codebase.js';
import { createWorkspaceFolders } from './workspace.js';

async function gitOutput(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    return (await runGit(args, { cwd, timeoutMs: 15_000 })).trim();
  } catch {
    return undefined;
  }
}

/** The top of the git checkout at `path`, or a RegistrationError saying why there is none. */
async function checkoutRoot(path: string): Promise<string> {
  if (!isAbsolute(path)) throw new RegistrationError('path_not_found', `path must be absolute, got ${path}`);
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new RegistrationError('path_not_found', `${path} does not exist or is not a directory`);
  }
  if ((await gitOutput(path, ['rev-parse', '--is-bare-repository'])) === 'true') {
    throw new RegistrationError(
      'bare_repository',
      `${path} is a bare repository; register it by URL instead ({"url": "file://${path}"}) so Cairn clones a working copy`,
    );
  }
  const top = await gitOutput(path, ['rev-parse', '--show-toplevel']);
  if (!top) throw new RegistrationError('not_a_git_repository', `${path} is not inside a git repository`);
  return realpathSync(top);
}

/** `source/` links to the user's checkout; an existing link to the same place is kept. */
function linkSource(sourceLink: string, target: string): void {
  try {
    if (lstatSync(sourceLink).isSymbolicLink() && resolve(readlinkSync(sourceLink)) === target) return;
    throw new Error(`${sourceLink} already exists and does not link to ${target}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    symlinkSync(target, sourceLink, 'dir');
  } catch (error) {
    // A concurrent registration of the same path made the same link.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Registers a local checkout by path: nothing is copied, `source/` links to it. */
export async function registerLocalPath(
  context: RegistrationContext,
  input: { path: string; allowEnvKeys: boolean; name?: string },
): Promise<RegistrationOutcome> {
  const root = await checkoutRoot(input.path);
  const identity = { ...localIdentity(root), key: `path:${root}` };
  const existing = await findCodebaseByRepositoryKey(context.db.knex, identity.key);
  if (existing) return { outcome: 'registered', codebase: existing, created: false };

  const gate = await checkEnvLeakGate({
    checkout: root,
    consent: input.allowEnvKeys,
    home: context.home,
    env: context.env,
    logger: context.logger,
  });
  if (!gate.allowed) return { outcome: 'blocked', scan: gate.scan, checkedPath: root };

  const workspace = await chooseWorkspace(context.db.knex, identity, context.workspacesRoot);
  createWorkspaceFolders(workspace);
  linkSource(workspace.source, root);
  const branch = await gitOutput(root, ['symbolic-ref', '--short', 'HEAD']);
  const stored = await storeCodebase(context.db.knex, identity, {
    url: null,
    localPath: root,
    sourcePath: workspace.source,
    defaultBranch: branch ?? null,
    allowEnvKeys: input.allowEnvKeys,
    name: input.name,
  });
  return { outcome: 'registered', ...stored };
}
