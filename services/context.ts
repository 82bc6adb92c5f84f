import type { Database } from '../db/connection.js';
import type { Logger } from '../config/logger.js';
import type { Environment } from '../config/environment.js';
import type { ConfigSource } from '../config/config-source.js';

/**
 * What every service function needs from the running process: the database, the home folder
 * and its settings, a logger. The API, the CLI, the activities and the adapters all pass the same
 * context, built once at start-up.
 */
export interface ServiceContext {
  db: Database;
  logger: Logger;
  home: string;
  workspacesRoot: string;
  environment: Environment;
  /** The global and per-repository config, read once and again only when a file changes. */
  config: ConfigSource;
  /** The process environment, for reading config files with env overrides. */
  env: NodeJS.ProcessEnv;
}
