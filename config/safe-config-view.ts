import type { CairnConfig, ConfigProblem, EffectiveConfig } from './config-types.js';

/** What `GET /api/config` may show: everything but the repository env map's values. */
export interface SafeConfigView extends Omit<EffectiveConfig, 'env'> {
  /** Names of the variables the repository injects into Claude; values are withheld. */
  envKeys: string[];
  sources: CairnConfig['sources'];
  problems: ConfigProblem[];
}

/** A plain copy (not the frozen config) so callers can serialise or extend it freely. */
export function safeConfigView(config: CairnConfig): SafeConfigView {
  const { env, ...rest } = config.effective;
  const copy = structuredClone(rest);
  return {
    ...copy,
    envKeys: Object.keys(env).sort(),
    sources: { ...config.sources },
    problems: config.problems.map((problem) => ({ ...problem })),
  };
}
