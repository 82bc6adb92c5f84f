import { scanForEnvLeaks, type EnvLeakScan } from './env-leak-scan.js';
import { evaluateEnvLeakGate } from './env-leak-gate.js';
import type { ServiceContext } from '../context.js';

export interface GateCheck {
  allowed: boolean;
  scan: EnvLeakScan;
}

/**
 * The env-leak gate at registration: scans the checkout and applies consent and
 * allow_target_repo_keys (the repository's own .cairn/config.yaml wins over the global file).
 */
export async function checkEnvLeakGate(
  context: Pick<ServiceContext, 'config' | 'logger'>,
  checkout: string,
  consent: boolean,
): Promise<GateCheck> {
  const scan = await scanForEnvLeaks(checkout);
  const { logger } = context;
  const config = context.config.forRepository(checkout);
  const decision = evaluateEnvLeakGate({
    scan,
    consent,
    allowTargetRepoKeys: config.effective.allowTargetRepoKeys,
    allowSource: config.effective.allowTargetRepoKeysSource,
    logger,
  });
  return { allowed: decision.allowed, scan };
}
