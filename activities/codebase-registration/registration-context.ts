import type { Database } from '../../db/connection.js';
import type { Logger } from '../../config/logger.js';
import type { Environment } from '../../config/environment.js';
import type { Codebase } from '../../db/repositories/codebases.js';
import type { EnvLeakScan } from '../codebases/env-leak-scan.js';

/** What registering a codebase needs from the running service. */
export interface RegistrationContext {
  db: Database;
  logger: Logger;
  home: string;
  workspacesRoot: string;
  environment: Environment;
  /** The process environment, for reading config files with env overrides. */
  env: NodeJS.ProcessEnv;
}

export type RegistrationOutcome =
  | { outcome: 'registered'; codebase: Codebase; created: boolean }
  | { outcome: 'blocked'; scan: EnvLeakScan; checkedPath: string };

/**
 * A registration that cannot work (not a repository, a failed clone, a workspace folder in the
 * way): a 4xx.
 */
export class RegistrationError extends Error {
  override name = 'RegistrationError';
  constructor(
    readonly code:
      | 'not_a_git_repository'
      | 'path_not_found'
      | 'bare_repository'
      | 'clone_failed'
      | 'invalid_url'
      | 'workspace_conflict',
    message: string,
  ) {
    super(message);
  }
}
