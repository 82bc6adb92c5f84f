import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { CairnConfig, ConfigProblem } from './config-types.js';
import { configDefaults } from './defaults.js';
import { readEnvironment, type Environment } from './environment.js';
import { deepFreeze } from './freeze.js';
import type { Logger } from './logger.js';
import { applyEnvironment, applyGlobalFile, applyRepositoryFile } from './merge-config.js';
import { homeLayout } from './paths.js';
import { readConfigFile, type ConfigFileResult } from './read-config-file.js';
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

/** One config file as read: where it is and what readConfigFile made of it. */
export interface ConfigLayer {
  file: string;
  read: ConfigFileResult;
}

export function globalConfigFile(home: string): string {
  return homeLayout(home).configFile;
}

export function repositoryConfigFile(repoPath: string): string {
  return path.join(repoPath, '.cairn', 'config.yaml');
}

export function readGlobalLayer(home: string, logger: Logger): ConfigLayer {
  const file = globalConfigFile(home);
  return { file, read: readConfigFile(file, 'global', logger) };
}

export function readRepositoryLayer(repoPath: string, logger: Logger): ConfigLayer {
  const file = repositoryConfigFile(repoPath);
  const outside = outsideRepository(repoPath, file);
  if (outside) {
    // The checkout is a boundary: a `.cairn` or config.yaml that links elsewhere is not read.
    logger.warn(
      { event: 'config.file_outside_repository', file },
      `[Config] ${file} links outside the repository; ignored`,
    );
    return {
      file,
      read: {
        present: true,
        value: {},
        problems: [{ file, message: `links outside the repository (${outside}); ignored` }],
      },
    };
  }
  return { file, read: readConfigFile(file, 'repository', logger) };
}

/** Where `file` really is when that is outside `repoPath` (through a link); undefined otherwise. */
function outsideRepository(repoPath: string, file: string): string | undefined {
  let real: string;
  let root: string;
  try {
    real = realpathSync(file);
    root = realpathSync(repoPath);
  } catch {
    return undefined; // no such file (or repository): nothing is read from anywhere
  }
  const inside = real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  return inside ? undefined : real;
}

/**
 * Layers defaults < the global file < the repository file < the environment into one frozen
 * config. The layers are not changed (and are frozen with the result), so one read file can serve
 * many compositions.
 */
export function composeConfig(
  home: string,
  environment: Environment,
  globalLayer: ConfigLayer,
  repositoryLayer?: ConfigLayer,
): CairnConfig {
  const effective = configDefaults(homeLayout(home));
  const sources: CairnConfig['sources'] = {};
  const problems: ConfigProblem[] = [];

  // Schema validation guarantees the shapes these casts describe.
  const global = globalLayer.read.value as GlobalConfigFile;
  if (globalLayer.read.present) sources.globalFile = globalLayer.file;
  problems.push(...globalLayer.read.problems);
  applyGlobalFile(effective, global, home);

  let repository: RepositoryConfigFile | undefined;
  if (repositoryLayer) {
    repository = repositoryLayer.read.value as RepositoryConfigFile;
    if (repositoryLayer.read.present) sources.repositoryFile = repositoryLayer.file;
    problems.push(...repositoryLayer.read.problems);
    applyRepositoryFile(effective, repository);
  }

  applyEnvironment(effective, environment);

  const config: CairnConfig = { global, effective, sources, problems };
  if (repository) config.repository = repository;
  return deepFreeze(config);
}

/**
 * Builds the configuration from the files as they are now: defaults < `<home>/config.yaml` <
 * `<repo>/.cairn/config.yaml` < environment. Config-file problems are logged and returned, never
 * thrown. Long-lived code reads a ConfigSource instead, which reads each file once.
 */
export function loadConfig(options: LoadConfigOptions): CairnConfig {
  const { home, repoPath, logger } = options;
  const environment = options.environment ?? readEnvironment(options.env ?? process.env);
  const globalLayer = readGlobalLayer(home, logger);
  const repositoryLayer = repoPath === undefined ? undefined : readRepositoryLayer(repoPath, logger);
  return composeConfig(home, environment, globalLayer, repositoryLayer);
}
