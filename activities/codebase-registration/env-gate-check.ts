import { loadConfig } from '../../config/load-config.js';
import type { Logger } from '../../config/logger.js';
import { scanForEnvLeaks, type EnvLeakScan } from '../codebases/env-leak-scan.js';
import { evaluateEnvLeakGate } from '../codebases/env-leak-gate.js';

export interface GateCheck {
  allowed: boolean;
  scan: EnvLeakScan;
}

/**
 * The env-leak gate at registration: scans the checkout and applies consent and
 * allow_target_repo_keys (the repository's own .cairn/config.yaml wins over the global file).
 */
export async function checkEnvLeakGate(options: {
  checkout: string;
  consent: boolean;
  home: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}): Promise<GateCheck> {
  const scan = await scanForEnvLeaks(options.checkout);
  const config = loadConfig({
    home: options.home,
    repoPath: options.checkout,
    env: options.env,
    logger: options.logger,
  });
  const decision = evaluateEnvLeakGate({
    scan,
    consent: options.consent,
    allowTargetRepoKeys: config.effective.allowTargetRepoKeys,
    allowSource: config.effective.allowTargetRepoKeysSource,
    logger: options.logger,
  });
  return { allowed: decision.allowed, scan };
}
