import { Nullable, StrictObject, StringEnum, Type, type Static } from '../../http/index.js';
import type { CairnConfig } from '../../../config/config-types.js';
import type { Environment } from '../../../config/environment.js';
import {
  ASSISTANT_NAMES,
  SETTING_SOURCES,
  STREAMING_MODES,
  STREAMING_PLATFORMS,
} from '../../../config/schema.js';
import { codeHostAuthConfigured } from '../../../config/code-host-auth.js';
import type { SignInMode } from '../../../config/sign-in-settings.js';

const NullableText = Nullable(Type.String());
const StreamingMode = StringEnum(STREAMING_MODES);
const INTEGRATIONS = ['telegram', 'discord', 'slack', 'github', 'gitlab'] as const;

/** What `GET /api/config` shows: settings and booleans, never a credential or a variable's value. */
export const Config = StrictObject({
  defaultAssistant: StringEnum(ASSISTANT_NAMES),
  assistants: StrictObject({
    claude: StrictObject({
      model: NullableText,
      settingSources: Type.Array(StringEnum(SETTING_SOURCES)),
      binaryPath: NullableText,
    }),
    codex: StrictObject({
      model: NullableText,
      modelReasoningEffort: NullableText,
      webSearchMode: NullableText,
      additionalDirectories: Type.Array(Type.String()),
      binaryPath: NullableText,
    }),
  }),
  streaming: StrictObject(
    Object.fromEntries(STREAMING_PLATFORMS.map((platform) => [platform, StreamingMode])),
  ),
  paths: StrictObject({
    workspaces: Type.String(),
    worktrees: Nullable(
      Type.String({ description: "null: each codebase's worktrees live in its workspace (worktrees/)" }),
    ),
  }),
  concurrency: StrictObject({ maxConversations: Type.Integer() }),
  retention: StrictObject({
    sessionRetentionDays: Type.Integer({ description: 'SESSION_RETENTION_DAYS' }),
    staleWorktreeDays: Type.Integer({ description: 'STALE_THRESHOLD_DAYS' }),
    maxWorktreesPerCodebase: Type.Integer({ description: 'MAX_WORKTREES_PER_CODEBASE' }),
    cleanupIntervalHours: Type.Integer({ description: 'CLEANUP_INTERVAL_HOURS' }),
  }),
  allowTargetRepoKeys: Type.Boolean(),
  commands: StrictObject({ folder: NullableText, autoLoad: Type.Boolean() }),
  worktree: StrictObject({
    baseBranch: Nullable(Type.String({ description: 'null: the remote default branch, detected' })),
    copyFiles: Type.Array(Type.String()),
  }),
  docs: StrictObject({ path: Type.String() }),
  defaults: StrictObject({
    loadDefaultCommands: Type.Boolean(),
    loadDefaultWorkflows: Type.Boolean(),
    loadArchonFolders: Type.Boolean(),
  }),
  envKeys: Type.Array(Type.String(), {
    description: "names of the variables the repository's env map gives Claude; the values are never shown",
  }),
  integrations: StrictObject(
    Object.fromEntries(INTEGRATIONS.map((name) => [name, Type.Boolean()])) as Record<
      (typeof INTEGRATIONS)[number],
      ReturnType<typeof Type.Boolean>
    >,
    { description: "whether each platform's credentials are set (not whether its adapter runs)" },
  ),
  database: StringEnum(['sqlite', 'postgres']),
  signIn: StringEnum(['open', 'token', 'form'], {
    description:
      'open: no sign-in; token: CAIRN_API_TOKEN only; form: password sign-in (and the token when set)',
  }),
  sources: StrictObject({ globalFile: NullableText, repositoryFile: NullableText }),
  problems: Type.Array(StrictObject({ file: Type.String(), key: NullableText, message: Type.String() }), {
    description: 'keys of the config files that were ignored, and why (values are never quoted)',
  }),
});

export type ConfigBody = Static<typeof Config>;

function integrations(environment: Environment): ConfigBody['integrations'] {
  return {
    telegram: environment.telegram.botToken !== undefined,
    discord: environment.discord.botToken !== undefined,
    slack: environment.slack.botToken !== undefined,
    github: codeHostAuthConfigured(environment, 'github'),
    gitlab: codeHostAuthConfigured(environment, 'gitlab'),
  };
}

/** The safe view of a config: what it sets, with the environment's figures, never a secret. */
export interface ConfigFacts {
  environment: Environment;
  database: ConfigBody['database'];
  signIn: SignInMode;
}

export function configView(config: CairnConfig, facts: ConfigFacts): ConfigBody {
  const { environment } = facts;
  const effective = config.effective;
  const { claude, codex } = effective.assistants;
  return {
    defaultAssistant: effective.defaultAssistant,
    assistants: {
      claude: {
        model: claude.model ?? null,
        settingSources: [...claude.settingSources],
        binaryPath: claude.claudeBinaryPath ?? null,
      },
      codex: {
        model: codex.model ?? null,
        modelReasoningEffort: codex.modelReasoningEffort ?? null,
        webSearchMode: codex.webSearchMode ?? null,
        additionalDirectories: [...codex.additionalDirectories],
        binaryPath: codex.codexBinaryPath ?? null,
      },
    },
    streaming: { ...effective.streaming },
    paths: { workspaces: effective.paths.workspaces, worktrees: effective.paths.worktrees ?? null },
    concurrency: { ...effective.concurrency },
    retention: {
      sessionRetentionDays: environment.general.sessionRetentionDays,
      staleWorktreeDays: environment.cleanup.staleThresholdDays,
      maxWorktreesPerCodebase: environment.cleanup.maxWorktreesPerCodebase,
      cleanupIntervalHours: environment.cleanup.intervalHours,
    },
    allowTargetRepoKeys: effective.allowTargetRepoKeys,
    commands: { folder: effective.commands.folder ?? null, autoLoad: effective.commands.autoLoad ?? true },
    worktree: {
      baseBranch: effective.worktree.baseBranch ?? null,
      copyFiles: [...effective.worktree.copyFiles],
    },
    docs: { ...effective.docs },
    defaults: { ...effective.defaults },
    envKeys: Object.keys(effective.env).sort(),
    integrations: integrations(environment),
    database: facts.database,
    signIn: facts.signIn,
    sources: {
      globalFile: config.sources.globalFile ?? null,
      repositoryFile: config.sources.repositoryFile ?? null,
    },
    problems: config.problems.map((problem) => ({
      file: problem.file,
      key: problem.key ?? null,
      message: problem.message,
    })),
  };
}
