import type { Codebase } from '../../db/repositories/codebases.js';
import type { EnvLeakScan } from './env-leak-scan.js';

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
