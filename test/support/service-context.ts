import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { readEnvironment } from '../../config/environment.js';
import { createConfigSource } from '../../config/config-source.js';
import { createLogger, type Logger } from '../../config/logger.js';
import type { Database } from '../../db/connection.js';
import type { ServiceContext } from '../../services/context.js';

/**
 * The dependencies activities and the registration service get in production, pointed at a
 * test's own home and database.
 */
export function testServiceContext(
  db: Database,
  options: { home: string; logger?: Logger; env?: NodeJS.ProcessEnv },
): ServiceContext {
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_HOME: options.home, ...options.env };
  const workspacesRoot = join(options.home, 'workspaces');
  mkdirSync(workspacesRoot, { recursive: true });
  const logger = options.logger ?? createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const environment = readEnvironment(env);
  return {
    db,
    logger,
    home: options.home,
    workspacesRoot,
    environment,
    // Its watches never hold the test process open; a test that wants them gone calls close().
    config: createConfigSource({ home: options.home, environment, logger }),
    env,
  };
}
