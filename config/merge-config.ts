import path from 'node:path';
import type { EffectiveConfig } from './config-types.js';
import type { Environment } from './environment.js';
import { expandHome } from './paths.js';
import type { AssistantsFileSettings, GlobalConfigFile, RepositoryConfigFile } from './schema.js';

/** Each apply* function layers one source onto `config`, in place; later layers win. */

function resolvePath(value: string, baseDir: string): string {
  return path.resolve(baseDir, expandHome(value));
}

function applyAssistants(config: EffectiveConfig, assistants: AssistantsFileSettings | undefined): void {
  const { claude, codex } = assistants ?? {};
  if (claude) {
    const target = config.assistants.claude;
    if (claude.model !== undefined) target.model = claude.model;
    if (claude.settingSources) target.settingSources = [...claude.settingSources];
    if (claude.claudeBinaryPath !== undefined) target.claudeBinaryPath = expandHome(claude.claudeBinaryPath);
  }
  if (codex) {
    const target = config.assistants.codex;
    if (codex.model !== undefined) target.model = codex.model;
    if (codex.modelReasoningEffort !== undefined) target.modelReasoningEffort = codex.modelReasoningEffort;
    if (codex.webSearchMode !== undefined) target.webSearchMode = codex.webSearchMode;
    if (codex.additionalDirectories)
      target.additionalDirectories = codex.additionalDirectories.map(expandHome);
    if (codex.codexBinaryPath !== undefined) target.codexBinaryPath = expandHome(codex.codexBinaryPath);
  }
}

/** Relative paths in the global file are relative to the home that holds it. */
export function applyGlobalFile(config: EffectiveConfig, file: GlobalConfigFile, home: string): void {
  if (file.defaultAssistant) config.defaultAssistant = file.defaultAssistant;
  applyAssistants(config, file.assistants);
  Object.assign(config.streaming, file.streaming);
  if (file.paths?.workspaces) config.paths.workspaces = resolvePath(file.paths.workspaces, home);
  if (file.paths?.worktrees) config.paths.worktrees = resolvePath(file.paths.worktrees, home);
  if (file.concurrency?.maxConversations !== undefined) {
    config.concurrency.maxConversations = file.concurrency.maxConversations;
  }
  if (file.allow_target_repo_keys !== undefined) {
    config.allowTargetRepoKeys = file.allow_target_repo_keys;
    config.allowTargetRepoKeysSource = 'global';
  }
}

/** commands.folder and docs.path stay as written: they are relative to the repository root. */
export function applyRepositoryFile(config: EffectiveConfig, file: RepositoryConfigFile): void {
  if (file.assistant) config.defaultAssistant = file.assistant;
  applyAssistants(config, file.assistants);
  Object.assign(config.commands, file.commands);
  if (file.worktree?.baseBranch !== undefined) config.worktree.baseBranch = file.worktree.baseBranch;
  if (file.worktree?.copyFiles) config.worktree.copyFiles = [...file.worktree.copyFiles];
  if (file.docs?.path !== undefined) config.docs.path = file.docs.path;
  Object.assign(config.defaults, file.defaults);
  Object.assign(config.env, file.env);
  if (file.allow_fork_pull_requests !== undefined)
    config.allowForkPullRequests = file.allow_fork_pull_requests;
  // The repository's choice wins in both directions, so a repo can opt out of a global bypass.
  if (file.allow_target_repo_keys !== undefined) {
    config.allowTargetRepoKeys = file.allow_target_repo_keys;
    config.allowTargetRepoKeysSource = 'repository';
  }
}

/** Environment variables are the top layer, but only those actually set override anything. */
export function applyEnvironment(config: EffectiveConfig, environment: Environment): void {
  const { general, claude, codex } = environment;
  if (general.defaultAssistant) config.defaultAssistant = general.defaultAssistant;
  if (general.maxConcurrentConversations !== undefined) {
    config.concurrency.maxConversations = general.maxConcurrentConversations;
  }
  for (const platform of ['telegram', 'discord', 'slack'] as const) {
    const mode = environment[platform].streamingMode;
    if (mode) config.streaming[platform] = mode;
  }
  if (claude.binPath) config.assistants.claude.claudeBinaryPath = claude.binPath;
  if (codex.binPath) config.assistants.codex.codexBinaryPath = codex.binPath;
}
