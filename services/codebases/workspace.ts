import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isInside } from '../../infra/files/path-inside.js';

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

export function createWorkspaceFolders(workspace: Workspace): void {
  for (const dir of [workspace.root, workspace.worktrees, workspace.artifacts, workspace.logs]) {
    mkdirSync(dir, { recursive: true });
  }
}

const realOrResolved = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));

/**
 * Deletes a managed workspace folder, and only that: it must lie inside the workspaces root,
 * and a `source` that links to the user's own checkout is unlinked, never followed.
 */
export function removeWorkspace(workspace: Workspace, workspacesRoot: string): boolean {
  if (!existsSync(workspace.root)) return false;
  // Never delete outside the managed root (paths.workspaces may have moved since registration).
  if (!isInside(realOrResolved(workspacesRoot), realOrResolved(workspace.root))) return false;
  try {
    if (lstatSync(workspace.source).isSymbolicLink()) rmSync(workspace.source);
  } catch {
    // no source entry
  }
  rmSync(workspace.root, { recursive: true, force: true });
  return true;
}
