import { defineRoute, defineRoutes, type RouteDefinition } from '../../http/index.js';
import { loadConfig } from '../../../config/load-config.js';
import type { ServiceContext } from '../../../services/context.js';
import { discoverCommands } from '../../../services/workflow-definitions/discover-commands.js';
import { projectDirectory } from '../../../services/workflow-definitions/project-directory.js';

export function commandRoutes(deps: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute<{ query: { cwd?: string } }>({
      method: 'GET',
      path: '/api/commands',
      operationId: 'listCommands',
      summary: 'Bundled and project commands (named prompts)',
      description:
        'Lookup order: .cairn/commands/, then commands.folder, then the bundled commands; the first wins.',
      tags: ['workflows'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { cwd: { type: 'string', minLength: 1, maxLength: 4096 } },
      },
      responses: {
        200: {
          description: 'the commands',
          schema: {
            type: 'object',
            required: ['commands'],
            properties: {
              commands: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'source'],
                  properties: {
                    name: { type: 'string' },
                    source: { type: 'string', enum: ['bundled', 'project'] },
                    description: { type: 'string' },
                    argumentHint: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
      handler: async ({ query }) => {
        let options: Parameters<typeof discoverCommands>[0] = { loadBundled: true };
        if (query.cwd !== undefined) {
          const directory = await projectDirectory(deps.db, query.cwd);
          const { effective } = loadConfig({
            home: deps.home,
            environment: deps.environment,
            logger: deps.logger,
            repoPath: directory.path,
          });
          options = {
            cwd: directory.path,
            commandsFolder: effective.commands.folder,
            loadBundled: effective.defaults.loadDefaultCommands,
          };
        }
        const commands = (await discoverCommands(options)).map(
          ({ name, source, description, argumentHint }) => ({
            name,
            source,
            ...(description ? { description } : {}),
            ...(argumentHint ? { argumentHint } : {}),
          }),
        );
        return { body: { commands } };
      },
    }),
  );
}
