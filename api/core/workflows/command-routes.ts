import { defineRoute, defineRoutes, type RouteDefinition } from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { listCommands } from '../../../services/workflow-definitions/command-catalog.js';

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
        const commands = (await listCommands(deps, query.cwd)).map(
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
