export { createLogger, LOG_LEVELS, type Logger, type LoggerOptions } from './logger.js';
export { ConfigError, type ConfigIssue } from './errors.js';
export {
  ensureHomeLayout,
  expandHome,
  homeLayout,
  resolveCairnHome,
  toolCacheDir,
  type HomeLayout,
} from './paths.js';
export {
  describeEnvironmentVariables,
  readEnvironment,
  type Environment,
  type EnvironmentVariableInfo,
} from './environment.js';
export { DEFAULT_BOT_DISPLAY_NAME } from './env-variables.js';
export {
  ASSISTANT_NAMES,
  SETTING_SOURCES,
  STREAMING_MODES,
  STREAMING_PLATFORMS,
  globalConfigSchema,
  repositoryConfigSchema,
  type AssistantName,
  type GlobalConfigFile,
  type RepositoryConfigFile,
  type SettingSource,
  type StreamingMode,
  type StreamingPlatform,
} from './schema.js';
export type {
  AllowTargetRepoKeysSource,
  CairnConfig,
  ClaudeSettings,
  CodexSettings,
  ConfigProblem,
  EffectiveConfig,
} from './config-types.js';
export { configDefaults, DEFAULT_DOCS_PATH, DEFAULT_MAX_CONVERSATIONS } from './defaults.js';
export { loadConfig, repositoryConfigFile, type LoadConfigOptions } from './load-config.js';
export { safeConfigView, type SafeConfigView } from './safe-config-view.js';
export {
  nestedSessionWarning,
  prepareProcessEnvironment,
  warnIfNested,
  WORKING_DIRECTORY_ENV_FILES,
  type PrepareEnvironmentOptions,
  type PreparedEnvironment,
} from './dotenv.js';
export { parseEnvFile, readEnvFile } from './env-file.js';
