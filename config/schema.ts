import { ASSISTANT_NAMES, STREAMING_MODES } from './env-variables.js';

export { ASSISTANT_NAMES, STREAMING_MODES };
export const STREAMING_PLATFORMS = ['telegram', 'discord', 'slack', 'github', 'gitlab'] as const;
export const SETTING_SOURCES = ['project', 'user'] as const;

export type AssistantName = (typeof ASSISTANT_NAMES)[number];
export type StreamingMode = (typeof STREAMING_MODES)[number];
export type StreamingPlatform = (typeof STREAMING_PLATFORMS)[number];
export type SettingSource = (typeof SETTING_SOURCES)[number];

// What a config file may contain: every key optional.

export interface ClaudeFileSettings {
  model?: string;
  settingSources?: SettingSource[];
  claudeBinaryPath?: string;
}

export interface CodexFileSettings {
  model?: string;
  modelReasoningEffort?: string;
  webSearchMode?: string;
  additionalDirectories?: string[];
  codexBinaryPath?: string;
}

export interface AssistantsFileSettings {
  claude?: ClaudeFileSettings;
  codex?: CodexFileSettings;
}

/** `<home>/config.yaml`. */
export interface GlobalConfigFile {
  defaultAssistant?: AssistantName;
  assistants?: AssistantsFileSettings;
  streaming?: Partial<Record<StreamingPlatform, StreamingMode>>;
  paths?: { workspaces?: string; worktrees?: string };
  concurrency?: { maxConversations?: number };
  allow_target_repo_keys?: boolean;
}

/** `<repo>/.cairn/config.yaml`. */
export interface RepositoryConfigFile {
  assistant?: AssistantName;
  assistants?: AssistantsFileSettings;
  commands?: { folder?: string; autoLoad?: boolean };
  worktree?: { baseBranch?: string; copyFiles?: string[] };
  docs?: { path?: string };
  defaults?: { loadDefaultCommands?: boolean; loadDefaultWorkflows?: boolean; loadArchonFolders?: boolean };
  env?: Record<string, string>;
  allow_target_repo_keys?: boolean;
  /** Answer in pull requests from forks (their code in a worktree without secrets or env keys). */
  allow_fork_pull_requests?: boolean;
}

// JSON Schemas. additionalProperties is false everywhere so a misspelt key is reported, not ignored.

const text = { type: 'string', minLength: 1 };
const absolutePath = { type: 'string', minLength: 1, format: 'absolute-path' };
const flag = { type: 'boolean' };

function section(properties: Record<string, object>) {
  return { type: 'object', additionalProperties: false, properties };
}

const assistants = section({
  claude: section({
    model: text,
    settingSources: { type: 'array', uniqueItems: true, items: { type: 'string', enum: SETTING_SOURCES } },
    claudeBinaryPath: absolutePath,
  }),
  codex: section({
    model: text,
    modelReasoningEffort: text,
    webSearchMode: text,
    additionalDirectories: { type: 'array', items: absolutePath },
    codexBinaryPath: absolutePath,
  }),
});

const assistantName = { type: 'string', enum: ASSISTANT_NAMES };
const streamingMode = { type: 'string', enum: STREAMING_MODES };

export const globalConfigSchema = section({
  defaultAssistant: assistantName,
  assistants,
  streaming: section(Object.fromEntries(STREAMING_PLATFORMS.map((platform) => [platform, streamingMode]))),
  paths: section({ workspaces: text, worktrees: text }),
  concurrency: section({ maxConversations: { type: 'integer', minimum: 1 } }),
  allow_target_repo_keys: flag,
});

export const repositoryConfigSchema = section({
  assistant: assistantName,
  assistants,
  commands: section({ folder: text, autoLoad: flag }),
  worktree: section({ baseBranch: text, copyFiles: { type: 'array', items: text } }),
  docs: section({ path: text }),
  defaults: section({ loadDefaultCommands: flag, loadDefaultWorkflows: flag, loadArchonFolders: flag }),
  env: {
    type: 'object',
    propertyNames: { pattern: '^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$' },
    additionalProperties: { type: 'string' },
  },
  allow_target_repo_keys: flag,
  allow_fork_pull_requests: flag,
});

export type ConfigFileKind = 'global' | 'repository';
