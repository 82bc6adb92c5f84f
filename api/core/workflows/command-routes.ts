import {
  defineRoute,
  defineRoutes,
  serializedOnce,
  type Static,
  StrictObject,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { listCommands } from '../../../services/workflow-definitions/command-catalog.js';
import type { CommandEntry } from '../../../services/workflow-definitions/discover-commands.js';
import { ItemSource } from './workflow-routes.js';

const CommandList = StrictObject({
  commands: Type.Array(
    StrictObject({
      name: Type.String(),
      source: ItemSource,
      description: Type.Optional(Type.String()),
      argumentHint: Type.Optional(Type.String()),
    }),
  ),
});

// The list is the same frozen array while no folder changes: its body is serialized once.
const listBody = serializedOnce((commands: readonly CommandEntry[]): Static<typeof CommandList> => ({
  commands: commands.map(({ name, source, description, argumentHint }) => ({
    name,
    source,
    ...(description ? { description } : {}),
    ...(argumentHint ? { argumentHint } : {}),
  })),
}));

export function commandRoutes(deps: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/commands',
      operationId: 'listCommands',
      summary: 'Bundled and project commands (named prompts)',
      description:
        'Lookup order: .cairn/commands/, then commands.folder, then the bundled commands; the first wins.',
      tags: ['workflows'],
      query: StrictObject({ cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) }),
      responses: { 200: { description: 'the commands', schema: CommandList } },
      handler: async ({ query }) => ({ body: listBody(await listCommands(deps, query.cwd)) }),
    }),
  );
}
