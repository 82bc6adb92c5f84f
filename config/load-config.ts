import path from 'node:path';
import type { CairnConfig, ConfigProblem } from './config-types.js';
import { configDefaults } from './defaults.js';
import { readEnvironment, type Environment } from './environment.js';
import { deepFreeze } from './freeze.js';
import type { Logger } from './logger.js';
import { applyEnvironment, applyGlobalFile, applyRepositoryFile } from './merge-config.js';
import { homeLayout } from './paths.js';
import { readConfigFile } from './read-config-file.js';
import type { GlobalConfigFile, RepositoryConfigFile } from './schema.js';

export interface LoadConfigOptions {
  home: string;
  /** Root of the target repository; its `.cairn/config.yaml` is layered over the global file. */
  repoPath?: string;
  /** Raw variables; read with readEnvironment (which throws ConfigError on bad values). */
  env?: NodeJS.ProcessEnv;
  /** An already-read environment, to avoid reading the variables twice. */
  environment?: Environment;
  logger: Logger;
}

export function repositoryConfigFile(repoPath: string): string {
  return path.join(repoPath, '.cairn', 'config.yaml');
}

/**
 * Builds the configuration: defaults < `<home>/config.yaml` < `<repo>/.cairn/config.yaml` <
 * environment. Config-file problems are logged and returned, never thrown.
 */
export function loadConfig(options: LoadConfigOptions): CairnConfig {
  const { home, repoPath, logger } = options;
  const environment = options.environment ?? readEnvironment(options.env ?? process.env);
  const layout = homeLayout(home);
  const effective = configDefaults(layout);
  const sources: CairnConfig['sources'] = {};
  const problems: ConfigProblem[] = [];

  // Schema validation guarantees the shapes these casts describe.
  const globalRead = readConfigFile(layout.configFile, 'global', logger);
  const global = globalRead.value as GlobalConfigFile;
  if (globalRead.present) sources.globalFile = layout.configFile;
  problems.push(...globalRead.problems);
  applyGlobalFile(effective, global, home);

  let repository: RepositoryConfigFile | undefined;
  if (repoPath !== undefined) {
    const file = repositoryConfigFile(repoPath);
    const repoRead = readConfigFile(file, 'repository', logger);
    repository = repoRead.value as RepositoryConfigFile;
    if (repoRead.present) sources.repositoryFile = file;
    problems.push(...repoRead.problems);
    applyRepositoryFile(effective, repository);
  }

  applyEnvironment(effective, environment);

  const config: CairnConfig = { global, effective, sources, problems };
  if (repository) config.repository = repository;
  return deepFreeze(config);
}
