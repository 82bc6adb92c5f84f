import type { AllowTargetRepoKeysSource } from '../../config/config-types.js';
import type { Logger } from '../../config/logger.js';
import type { EnvLeakScan } from './env-leak-scan.js';

// The 422 text belongs with the decision for callers, but is its own job.
export { envLeakProblemDetail, type EnvLeakProblem, type EnvLeakRemedy } from './env-leak-problem.js';

export type EnvLeakGateReason = 'clean' | 'consented' | 'gate_disabled' | 'blocked';

export interface EnvLeakGateInput {
  scan: EnvLeakScan;
  /** The codebase's allowEnvKeys; a worktree passes its codebase's value. */
  consent: boolean;
  /** The effective allow_target_repo_keys for this repository. */
  allowTargetRepoKeys: boolean;
  /** Where that value came from; the bypass is logged once per source. */
  allowSource: AllowTargetRepoKeysSource;
  logger: Logger;
}

export interface EnvLeakGateDecision {
  allowed: boolean;
  reason: EnvLeakGateReason;
  scan: EnvLeakScan;
}

export const ENV_LEAK_GATE_DISABLED = 'env_leak_gate_disabled';

// A machine-wide bypass would otherwise log on every spawn; once per source keeps it visible
// without drowning the log, and still shows when a repository file adds its own bypass.
const bypassLogged = new Set<AllowTargetRepoKeysSource>();

/** Forgets which bypass sources were logged, so each test starts as a fresh process. */
export function resetEnvLeakGateLogOnce(): void {
  bypassLogged.clear();
}

/**
 * Decides whether an assistant may work in a directory with this scan. The codebase's own
 * consent is checked before the bypass, so `gate_disabled` (and its log line) means the bypass
 * is what let a finding through.
 */
export function evaluateEnvLeakGate(input: EnvLeakGateInput): EnvLeakGateDecision {
  const { scan } = input;
  if (scan.findings.length === 0) return { allowed: true, reason: 'clean', scan };
  if (input.consent) return { allowed: true, reason: 'consented', scan };
  if (input.allowTargetRepoKeys) {
    if (!bypassLogged.has(input.allowSource)) {
      bypassLogged.add(input.allowSource);
      input.logger.warn({ event: ENV_LEAK_GATE_DISABLED, source: input.allowSource }, ENV_LEAK_GATE_DISABLED);
    }
    return { allowed: true, reason: 'gate_disabled', scan };
  }
  return { allowed: false, reason: 'blocked', scan };
}
