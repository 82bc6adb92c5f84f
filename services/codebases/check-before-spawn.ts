import type { CairnConfig } from '../../config/config-types.js';
import type { Logger } from '../../config/logger.js';
import { evaluateEnvLeakGate, type EnvLeakGateDecision } from './env-leak-gate.js';
import { envLeakProblemDetail } from './env-leak-problem.js';
import { scanForEnvLeaks, type EnvLeakScan } from './env-leak-scan.js';

/** An assistant must not start in `dir`: it holds env files with keys and nothing allows that. */
export class EnvLeakBlockedError extends Error {
  override name = 'EnvLeakBlockedError';
  constructor(
    readonly dir: string,
    readonly scan: EnvLeakScan,
    /** The same text registration answers with; names files and keys, never values. */
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface SpawnCheckOptions {
  /** The worktree (or checkout) the assistant will run in. */
  dir: string;
  /** The codebase's allowEnvKeys; worktrees inherit it from their codebase. */
  consent: boolean;
  /** That repository's config (ServiceContext.config.forRepository of it). */
  config: CairnConfig;
  logger: Logger;
}

/**
 * Scans again right before a spawn: files can appear after registration (a commit, a branch
 * switch, an assistant writing one), and each worktree has its own copy of the tree.
 */
export async function assertNoEnvLeak(options: SpawnCheckOptions): Promise<EnvLeakGateDecision> {
  const scan = await scanForEnvLeaks(options.dir);
  const decision = evaluateEnvLeakGate({
    scan,
    consent: options.consent,
    allowTargetRepoKeys: options.config.effective.allowTargetRepoKeys,
    allowSource: options.config.effective.allowTargetRepoKeysSource,
    logger: options.logger,
  });
  if (!decision.allowed) {
    throw new EnvLeakBlockedError(options.dir, scan, envLeakProblemDetail(scan, options.dir).detail);
  }
  return decision;
}
