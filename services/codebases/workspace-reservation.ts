import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RepositoryIdentity } from '../../domain/codebases/repository-identity.js';
import { RegistrationError } from './registration-outcome.js';
import { workspaceAt, type Workspace } from './workspace.js';

/** Names the repository a workspace folder was reserved for. */
export const OWNER_FILE = '.cairn-repository';

export interface Reservation {
  workspace: Workspace;
  /** True when this call made the folder (and so removes it if the registration fails). */
  created: boolean;
}

type Claim = 'created' | 'ours' | 'taken';

async function ownerOf(folder: string): Promise<string | undefined> {
  try {
    return (await readFile(join(folder, OWNER_FILE), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/**
 * Takes `folder` for the repository `key`, atomically: the folder is built aside with its owner
 * file and renamed into place, and a rename never replaces a folder with content. Two different
 * repositories racing for one folder cannot both get it; the same repository (a retried or
 * concurrent registration) finds its own.
 */
async function claimFolder(folder: string, key: string): Promise<Claim> {
  await mkdir(dirname(folder), { recursive: true });
  const aside = await mkdtemp(join(dirname(folder), '.reserving-'));
  await writeFile(join(aside, OWNER_FILE), `${key}\n`);
  try {
    await rename(aside, folder);
    return 'created';
  } catch (error) {
    await rm(aside, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'ENOTDIR') throw error;
  }
  // A folder without an owner file (made before reservations existed) belongs to someone else.
  return (await ownerOf(folder)) === key ? 'ours' : 'taken';
}

/**
 * The workspace folder of a repository: `<owner>/<repo>`, or `<owner>/<repo>-<hash of its key>`
 * when another repository with the same names holds that one (a fork on another host, two local
 * checkouts called `app`). The same repository always lands in the same folder.
 */
export async function reserveWorkspace(
  identity: RepositoryIdentity,
  workspacesRoot: string,
): Promise<Reservation> {
  const suffix = createHash('sha256').update(identity.key).digest('hex').slice(0, 8);
  const candidates = [identity.name, `${identity.name}-${suffix}`];
  for (const name of candidates) {
    const folder = join(workspacesRoot, identity.owner, name);
    const claim = await claimFolder(folder, identity.key);
    if (claim !== 'taken') return { workspace: workspaceAt(folder), created: claim === 'created' };
  }
  throw new RegistrationError(
    'workspace_conflict',
    `the workspace folders ${candidates.map((name) => `${identity.owner}/${name}`).join(' and ')} belong to other repositories`,
  );
}

/**
 * Undoes a reservation whose registration failed: the folder goes if this call made it and
 * nothing has been put in `source/` since (a concurrent registration of the same repository
 * may have finished meanwhile).
 */
export async function releaseWorkspace(reservation: Reservation): Promise<void> {
  if (!reservation.created) return;
  try {
    await lstat(reservation.workspace.source);
    return; // `source/` is there (a link counts, even a dangling one): keep the folder
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await rm(reservation.workspace.root, { recursive: true, force: true });
}
