import type {
  AssistantName,
  GlobalConfigFile,
  RepositoryConfigFile,
  SettingSource,
  StreamingMode,
  StreamingPlatform,
} from './schema.js';

export interface ClaudeSettings {
  model?: string;
  settingSources: SettingSource[];
  claudeBinaryPath?: string;
}

export interface CodexSettings {
  model?: string;
  modelReasoningEffort?: string;
  webSearchMode?: string;
  additionalDirectories: string[];
  codexBinaryPath?: string;
}

/** Where allow_target_repo_keys came from; the env-leak gate logs its bypass once per source. */
export type AllowTargetRepoKeysSource = 'default' | 'global' | 'repository';

/** The merged result of defaults, both files and the environment. */
export interface EffectiveConfig {
  defaultAssistant: AssistantName;
  assistants: { claude: ClaudeSettings; codex: CodexSettings };
  streaming: Record<StreamingPlatform, StreamingMode>;
  /** worktrees: a root for every codebase's worktrees (`<root>/<owner>/<repo>/`); unset, each workspace's own. */
  paths: { workspaces: string; worktrees?: string };
  concurrency: { maxConversations: number };
  allowTargetRepoKeys: boolean;
  allowTargetRepoKeysSource: AllowTargetRepoKeysSource;
  commands: { folder?: string; autoLoad?: boolean };
  /** baseBranch unset means: auto-detect the remote's default branch. */
  worktree: { baseBranch?: string; copyFiles: string[] };
  docs: { path: string };
  defaults: {
    loadDefaultCommands: boolean;
    loadDefaultWorkflows: boolean;
    /** A repository's `.archon/workflows/` and `.archon/commands/` (Archon's folders) are read too. */
    loadArchonFolders: boolean;
  };
  /** Injected into the Claude subprocess environment only. Values may be secrets. */
  env: Record<string, string>;
  /** The repository (its base branch's .cairn/config.yaml) lets the bot work in fork pull requests. */
  allowForkPullRequests: boolean;
}

/** A config-file problem: the whole file (no key) or one key that was ignored. */
export interface ConfigProblem {
  file: string;
  key?: string;
  message: string;
}

export interface CairnConfig {
  /** The valid part of `<home>/config.yaml` ({} when absent or unreadable). */
  global: GlobalConfigFile;
  /** The valid part of `<repo>/.cairn/config.yaml`, when a repository was given. */
  repository?: RepositoryConfigFile;
  effective: EffectiveConfig;
  /** Files that existed and were read (even if they had problems). */
  sources: { globalFile?: string; repositoryFile?: string };
  problems: ConfigProblem[];
}
