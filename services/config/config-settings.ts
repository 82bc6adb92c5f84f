import type { CairnConfig } from '../../config/config-types.js';
import { globalConfigFile } from '../../config/load-config.js';
import {
  ConfigFileRefused,
  editGlobalConfigFile,
  type ConfigEdit,
} from '../../config/write-global-config.js';
import { existingCodebase } from '../codebases/codebase-queries.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';

/** The settings of each assistant that the API may change; `null` removes one (back to its default). */
export interface AssistantSettingsPatch {
  claude?: { model?: string | null; settingSources?: Array<'project' | 'user'> | null };
  codex?: {
    model?: string | null;
    modelReasoningEffort?: string | null;
    webSearchMode?: string | null;
    additionalDirectories?: string[] | null;
  };
}

/** The config as it applies now: global, or layered with a codebase's `.cairn/config.yaml`. */
export async function currentConfig(context: ServiceContext, codebaseId?: string): Promise<CairnConfig> {
  if (codebaseId === undefined) return context.config.global();
  const codebase = await existingCodebase(context, codebaseId);
  return context.config.forRepository(codebase.sourcePath);
}

function editsOf(patch: AssistantSettingsPatch): ConfigEdit[] {
  const edits: ConfigEdit[] = [];
  for (const [assistant, settings] of Object.entries(patch)) {
    for (const [key, value] of Object.entries(settings ?? {}))
      if (value !== undefined) edits.push({ path: ['assistants', assistant, key], value });
  }
  return edits;
}

/**
 * Writes assistant settings into `<home>/config.yaml` (comments and other keys kept, replaced
 * atomically) and answers the config as it now applies. Every process reading the same home sees
 * the change at its next use: the next turn takes it, with no restart.
 */
export function updateAssistantSettings(context: ServiceContext, patch: AssistantSettingsPatch): CairnConfig {
  const edits = editsOf(patch);
  if (edits.length > 0) {
    try {
      editGlobalConfigFile(globalConfigFile(context.home), edits);
    } catch (error) {
      if (!(error instanceof ConfigFileRefused)) throw error;
      throw ServiceError.conflict(error.message, undefined, 'config_file_refused');
    }
    context.config.reload();
  }
  return context.config.global();
}
