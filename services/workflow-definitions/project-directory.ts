import { realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ServiceError } from '../service-error.js';
import type { Database } from '../../db/connection.js';
import { findCodebaseAtPath, listCodebases, type Codebase } from '../../db/repositories/codebases.js';
import { listActiveEnvironments } from '../../db/repositories/isolation-environments.js';

export interface ProjectDirectory {
  /** The directory, symlinks resolved. */
  path: string;
  codebase: Codebase;
}

function realOrUndefined(path: string | null | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function refused(message: string): ServiceError {
  return ServiceError.invalid(
    'cwd_not_allowed',
    `${message} Workflows and commands are read only from a registered codebase or one of its worktrees.`,
    [{ path: '/query/cwd', message }],
  );
}

/**
 * The `cwd` of the workflow and command endpoints, allowed only when it is a registered
 * codebase's checkout or one of its active worktrees: the API must not become a way to read
 * arbitrary directories of the host.
 */
export async function projectDirectory(db: Database, cwd: string): Promise<ProjectDirectory> {
  if (!isAbsolute(cwd)) throw refused('must be an absolute path.');
  const path = realOrUndefined(cwd);
  if (!path) throw refused('does not exist.');
  // Most often the stored checkout path is the resolved cwd itself: one indexed-size read, or
  // none while the path cache is trusted (Postgres, db/codebase-path-cache.ts).
  const readAtPath = (at: string) => findCodebaseAtPath(db.reader, at);
  const exact = db.codebasePaths ? await db.codebasePaths.lookup(path, readAtPath) : await readAtPath(path);
  if (exact) return { path, codebase: exact };
  const codebases = await listCodebases(db.reader);
  for (const codebase of codebases) {
    if (path === realOrUndefined(codebase.sourcePath) || path === realOrUndefined(codebase.localPath)) {
      return { path, codebase };
    }
  }
  const byId = new Map(codebases.map((codebase) => [codebase.id, codebase]));
  for (const environment of await listActiveEnvironments(db.knex)) {
    const codebase = byId.get(environment.codebaseId);
    if (codebase && path === realOrUndefined(environment.path)) return { path, codebase };
  }
  throw refused('is not a registered codebase or one of its worktrees.');
}
