import type { Database } from '../../db/connection.js';
import type { ServiceContext } from '../../services/context.js';
import type { CairnContext } from './context.js';

/** What activities and the registration service need, from the running service's context. */
export function activityDependencies(context: CairnContext, db: Database): ServiceContext {
  return {
    db,
    logger: context.logger,
    home: context.layout.home,
    workspacesRoot: context.config.effective.paths.workspaces,
    environment: context.environment,
    config: context.configSource,
    env: process.env,
  };
}
