import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RepositoryIdentity } from '../../domain/codebases/repository-identity.js';

/** Spec rule 6: `<workspaces>/<owner>/<repo>/{source,worktrees,artifacts,logs}`. */
export interface Workspace {
  root: string;
  source: string;
  worktrees: string;
  artifacts: string;
  logs: string;
}

export function workspaceAt(root: string): Workspace {
  return {
    root,
    source: join(root, 'source'),
    worktrees: join(root, 'worktrees'),
    artifacts: join(root, 'artifacts'),
    logs: join(root, 'logs'),
  };
}

/**
 * The folder for a repository. Two repositories with the same owner/name (a fork on another
 * host, two local checkouts called `app`) must not share one, so the second gets a suffix
 * derived from its key: the same repository always lands in the same folder.
 */
export function workspaceFor(
  identity: RepositoryIdentity,
  workspacesRoot: string,
  isTakenByAnother: (folder: string) => boolean,
): Workspace {
  const plain = join(workspacesRoot, identity.owner, identity.name);
  if (!isTakenByAnother(plain)) return workspaceAt(plain);
  const suffix = createHash('sha256').update(identity.key).digest('hex').slice(0, 8);
  return workspaceAt(join(workspacesRoot, identity.owner, `${identity.name}-${suffix}`));
}

export function createWorkspaceFolders(workspace: Workspace): void {
  for (const dir of [workspace.root, workspace.worktrees, workspace.artifacts, workspace.logs]) {
    mkdirSync(dir, { recursive: true });
  }
}

/** Whether `candidate` is strictly inside `root`, after resolving symlinks of existing parts. */
export function isInside(root: string, candidate: string): boolean {
  const real = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));
  const rel = relative(real(root), real(candidate));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Deletes a managed workspace folder, and only that: it must lie inside the workspaces root,
 * and a `source` that links to the user's own checkout is unlinked, never followed.
 */
export function removeWorkspace(workspace: Workspace, workspacesRoot: string): boolean {
  if (!existsSync(workspace.root)) return false;
  // Never delete outside the managed root (paths.workspaces may have moved since registration).
  if (!isInside(workspacesRoot, workspace.root)) return false;
  try {
    if (lstatSync(workspace.source).isSymbolicLink()) rmSync(workspace.source);
  } catch {
    // no source entry
  }
  rmSync(workspace.root, { recursive: true, force: true });
  return true;
}
