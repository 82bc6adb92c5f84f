import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const DEFAULT_PORT = 3090;
export const WORKTREE_PORT_MIN = 3190;
export const WORKTREE_PORT_MAX = 4089;

/**
 * The directory of the linked git worktree containing `cwd`, or undefined. A linked worktree
 * has a `.git` file ("gitdir: <repo>/.git/worktrees/<name>") instead of a `.git` directory;
 * reading it avoids spawning git on every start.
 */
export function linkedWorktreeRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const marker = join(dir, '.git');
    try {
      if (statSync(marker).isFile()) {
        const pointer = readFileSync(marker, 'utf8');
        return /gitdir:.*[\\/]worktrees[\\/]/.test(pointer) ? dir : undefined;
      }
      return undefined; // a .git directory: the main checkout, not a linked worktree
    } catch {
      // no .git here: look in the parent
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** A port in 3190–4089 that is the same every time for one worktree path. */
export function worktreePort(worktreePath: string): number {
  const digest = createHash('sha256').update(worktreePath).digest();
  const span = WORKTREE_PORT_MAX - WORKTREE_PORT_MIN + 1;
  return WORKTREE_PORT_MIN + (digest.readUInt32BE(0) % span);
}

/** PORT when set; otherwise the worktree's own port inside a linked worktree; else 3090. */
export function resolveCorePort(explicit: number | undefined, cwd: string): number {
  if (explicit !== undefined) return explicit;
  const worktree = linkedWorktreeRoot(cwd);
  return worktree ? worktreePort(worktree) : DEFAULT_PORT;
}
