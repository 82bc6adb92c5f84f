import type { CairnConfig } from '../../config/config-types.js';
import type { AssistantName } from './types.js';

export const DEFAULT_ASSISTANT: AssistantName = 'claude';

/**
 * The assistant for a turn or node. One that the caller names (a workflow node, a conversation
 * already bound to a provider) wins; otherwise the configured default, whose layers loadConfig
 * already merged as the spec orders them, later winning: built-in `claude` < global
 * `defaultAssistant` < repository `assistant` < DEFAULT_AI_ASSISTANT.
 */
export function chooseAssistant(
  config: Pick<CairnConfig, 'effective'>,
  requested?: AssistantName,
): AssistantName {
  return requested ?? config.effective.defaultAssistant ?? DEFAULT_ASSISTANT;
}
