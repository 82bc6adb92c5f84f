import { createHttpApp, type HttpApp } from '../http/index.js';
import type { Logger } from '../../config/logger.js';
import { healthComponents, healthRoutes, type HealthDependencies } from './health-routes.js';
import { updateRoutes, type UpdateInfo } from './update-routes.js';
import { codebaseRoutes, type CodebaseRouteDependencies } from './codebases/codebase-routes.js';
import { codebaseSchemas } from './codebases/codebase-view.js';

export interface CoreAppDependencies extends HealthDependencies {
  logger: Logger;
  corsOrigin: string;
  update: UpdateInfo;
  codebases: CodebaseRouteDependencies;
}

/** The core service on PORT: health, system and the orchestration API. */
export function createCoreApp(deps: CoreAppDependencies): HttpApp {
  return createHttpApp({
    title: 'Cairn core API',
    version: deps.version,
    description: 'Conversations, codebases, workflows and runs of AI coding assistants.',
    routes: [...healthRoutes(deps), ...updateRoutes(deps.update), ...codebaseRoutes(deps.codebases)],
    components: { schemas: { ...healthComponents, ...codebaseSchemas } },
    logger: deps.logger.child({ component: 'core-api' }),
    corsOrigin: deps.corsOrigin,
    openapiPaths: ['/api/openapi.json'],
  });
}
