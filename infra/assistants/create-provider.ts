import type { EffectiveConfig } from '../../config/config-types.js';
import type { Environment } from '../../config/environment.js';
import type { Logger } from '../../config/logger.js';
import { ClaudeProvider } from './claude.js';
import { CodexProvider } from './codex.js';
import { warnIfNestedOnce, type NestedSessionWarner } from './nested-session-warning.js';
import { tracedProvider } from './traced-provider.js';
import type { AssistantName, AssistantProvider } from './types.js';

export interface AssistantProviderDeps {
  environment: Environment;
  config: EffectiveConfig;
  logger: Logger;
  home: string;
  /** The variables subprocesses start from, before sanitizing; process.env by default. */
  processEnv?: NodeJS.ProcessEnv;
  /** Prints the nested-Claude-session warning; once per process by default. */
  warnNested?: NestedSessionWarner;
}

export function createAssistantProvider(name: AssistantName, deps: AssistantProviderDeps): AssistantProvider {
  const processEnv = deps.processEnv ?? process.env;
  const { environment, logger } = deps;
  if (name === 'codex') {
    return tracedProvider(
      new CodexProvider({
        environment,
        logger,
        processEnv,
        home: deps.home,
        settings: deps.config.assistants.codex,
      }),
    );
  }
  const warnNested = deps.warnNested ?? warnIfNestedOnce;
  return tracedProvider(
    new ClaudeProvider({
      environment,
      logger,
      processEnv,
      warnNested,
      settings: deps.config.assistants.claude,
    }),
  );
}
