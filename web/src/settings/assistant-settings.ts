// The assistant settings form's model: the draft as typed, the PATCH it sends (only what changed),
// and which field a 400's error paths name.
import type { components } from '../api/schema.js';

type Config = components['schemas']['Config'];
export type SettingSource = Config['assistants']['claude']['settingSources'][number];

/** Every setting source Claude accepts, in the order the page shows them. */
export const SETTING_SOURCES = ['project', 'user'] as const satisfies readonly SettingSource[];
// A source added to the API without being listed above fails to compile here.
const allListed: Exclude<SettingSource, (typeof SETTING_SOURCES)[number]> extends never ? true : never = true;
void allListed;

export interface AssistantDraft {
  claudeModel: string;
  claudeSources: SettingSource[];
  codexModel: string;
  codexEffort: string;
  codexWebSearch: string;
  /** One absolute path a line. */
  codexDirectories: string;
}

export type FieldName = keyof AssistantDraft;

export function draftOf(config: Config): AssistantDraft {
  const { claude, codex } = config.assistants;
  return {
    claudeModel: claude.model ?? '',
    claudeSources: [...claude.settingSources],
    codexModel: codex.model ?? '',
    codexEffort: codex.modelReasoningEffort ?? '',
    codexWebSearch: codex.webSearchMode ?? '',
    codexDirectories: codex.additionalDirectories.join('\n'),
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

type Patch = {
  claude?: { model?: string | null; settingSources?: SettingSource[] | null };
  codex?: {
    model?: string | null;
    modelReasoningEffort?: string | null;
    webSearchMode?: string | null;
    additionalDirectories?: string[] | null;
  };
};

/**
 * Only what differs from the configuration as it applies: an untouched setting stays as the file
 * has it. An emptied text, or an emptied list of directories, is null: back to the default.
 */
export function assistantPatch(config: Config, draft: AssistantDraft): Patch {
  const { claude, codex } = config.assistants;
  const patch: Patch = {};
  const text = (before: string | null, now: string) => {
    const value = now.trim();
    return (before ?? '') === value ? undefined : { value: value || null };
  };
  const claudeModel = text(claude.model, draft.claudeModel);
  const sources = SETTING_SOURCES.filter((source) => draft.claudeSources.includes(source));
  const sourcesChanged = !sameList([...claude.settingSources].sort(), [...sources].sort());
  if (claudeModel || sourcesChanged)
    patch.claude = {
      ...(claudeModel && { model: claudeModel.value }),
      ...(sourcesChanged && { settingSources: sources }),
    };
  const codexModel = text(codex.model, draft.codexModel);
  const effort = text(codex.modelReasoningEffort, draft.codexEffort);
  const webSearch = text(codex.webSearchMode, draft.codexWebSearch);
  const directories = lines(draft.codexDirectories);
  const directoriesChanged = !sameList(codex.additionalDirectories, directories);
  if (codexModel || effort || webSearch || directoriesChanged)
    patch.codex = {
      ...(codexModel && { model: codexModel.value }),
      ...(effort && { modelReasoningEffort: effort.value }),
      ...(webSearch && { webSearchMode: webSearch.value }),
      ...(directoriesChanged && { additionalDirectories: directories.length > 0 ? directories : null }),
    };
  return patch;
}

const FIELD_OF_PATH: Array<[string, FieldName]> = [
  ['/body/claude/model', 'claudeModel'],
  ['/body/claude/settingSources', 'claudeSources'],
  ['/body/codex/model', 'codexModel'],
  ['/body/codex/modelReasoningEffort', 'codexEffort'],
  ['/body/codex/webSearchMode', 'codexWebSearch'],
  ['/body/codex/additionalDirectories', 'codexDirectories'],
];

/**
 * A 400's errors by the field they name (`/body/codex/additionalDirectories/2` is the third
 * line of the directories); errors naming no field of the form are left to the form's own note.
 */
export function fieldErrors(
  errors: ReadonlyArray<{ path: string; message: string }>,
  draft: AssistantDraft,
): Partial<Record<FieldName, string>> {
  const found: Partial<Record<FieldName, string>> = {};
  for (const error of errors) {
    const match = FIELD_OF_PATH.find(([path]) => error.path === path || error.path.startsWith(`${path}/`));
    if (!match) continue;
    const [path, field] = match;
    const index = Number(error.path.slice(path.length + 1));
    let text = error.message;
    if (field === 'codexDirectories' && error.path !== path && Number.isInteger(index)) {
      // The API's pattern is `^/`: say what it means. The entry is named by its text, as blank
      // lines are not sent and a line number would not match the box.
      const reason = error.message.includes('pattern')
        ? 'not an absolute path (start it with /)'
        : error.message;
      const entry = lines(draft.codexDirectories)[index];
      text = `${entry ?? `Entry ${index + 1}`}: ${reason}`;
    }
    found[field] = found[field] ? `${found[field]}; ${text}` : text;
  }
  return found;
}
