import type { CairnConfig } from '../../config/config-types.js';
import { withoutCodeHostTokens } from '../../infra/assistants/subprocess-env.js';

// What runs on code from outside the repository (a worktree marked `untrusted`: a fork's pull
// request), a turn or a workflow run's node alike, gets none of the repository's secrets.

/** The config without the repository's `env` map and without consent to keys in env files. */
export function withoutRepositorySecrets(config: CairnConfig): CairnConfig {
  return { ...config, effective: { ...config.effective, env: {}, allowTargetRepoKeys: false } };
}

/** The process environment a subprocess starts from: without the code-host tokens in untrusted code. */
export function processEnvFor(
  processEnv: NodeJS.ProcessEnv,
  untrusted: boolean | undefined,
): NodeJS.ProcessEnv {
  return untrusted ? withoutCodeHostTokens(processEnv) : processEnv;
}
