import type { EffectiveConfig } from './config-types.js';
import type { HomeLayout } from './paths.js';

export const DEFAULT_MAX_CONVERSATIONS = 10;
export const DEFAULT_DOCS_PATH = 'docs';

/** Built-in defaults, the lowest layer. A fresh object each call: callers merge into it. */
export function configDefaults(layout: HomeLayout): EffectiveConfig {
  return {
    defaultAssistant: 'claude',
    assistants: {
      claude: { settingSources: ['project'] },
      codex: { additionalDirectories: [] },
    },
    // Telegram edits messages cheaply, so it streams; elsewhere a stream of posts is noise.
    streaming: { telegram: 'stream', discord: 'batch', slack: 'batch', github: 'batch', gitlab: 'batch' },
    // No worktrees root: each codebase's worktrees live in its workspace (spec rule 6).
    paths: { workspaces: layout.workspaces },
    concurrency: { maxConversations: DEFAULT_MAX_CONVERSATIONS },
    allowTargetRepoKeys: false,
    allowTargetRepoKeysSource: 'default',
    commands: {},
    worktree: { copyFiles: [] },
    docs: { path: DEFAULT_DOCS_PATH },
    defaults: { loadDefaultCommands: true, loadDefaultWorkflows: true, loadArchonFolders: true },
    env: {},
    allowForkPullRequests: false,
  };
}
