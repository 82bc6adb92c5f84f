import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve, basename, dirname } from 'node:path';
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

/**
 * Where a codebase's worktrees go: its workspace's `worktrees/`, or, when `paths.worktrees` names
 * a root, `<root>/<owner>/<repo>/` (the workspace's last two folders).
 */
export function worktreesRootFor(sourcePath: string, configuredRoot: string | undefined): string {
  const workspace = workspaceAt(dirname(sourcePath));
  if (configuredRoot === undefined) return workspace.worktrees;
  return join(configuredRoot, basename(dirname(workspace.root)), basename(workspace.root));
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
