import {
  defineRoute,
  defineRoutes,
  Nullable,
  problemResponse,
  StrictObject,
  StringEnum,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import { COMMANDS } from '../../../domain/commands/command-grammar.js';
import { runCommand, type CommandServices } from '../../../services/commands/run-command.js';
import { ServiceError } from '../../../services/service-error.js';
import { requestActor } from '../codebases/actor.js';
import { conversationParams } from './conversation-routes.js';

const MAX_COMMAND_LENGTH = 8_000;

export const CommandReply = StrictObject({
  command: StringEnum([...COMMANDS.map((command) => command.name), 'unknown']),
  ok: Type.Boolean({ description: 'false when the command was refused; `text` says why' }),
  text: Type.String({ description: 'the answer, as markdown' }),
  conversation: Type.Optional(
    StrictObject(
      {
        id: Type.String(),
        platformConversationId: Type.String(),
        codebaseId: Nullable(Type.String()),
      },
      {
        description:
          'set when the command started another conversation (`/new`, `/codebase`): continue there',
      },
    ),
  ),
  runId: Type.Optional(Type.String({ description: 'the run the command started or decided' })),
});

/**
 * The chat command grammar over HTTP, for the doors that are API clients (the web page's chat box,
 * the terminal's interactive chat): the same commands, parsed and run by the same service as the
 * chat platforms and code hosts use in-process.
 */
export function chatCommandRoutes(services: CommandServices): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'POST',
      path: '/api/conversations/{id}/command',
      operationId: 'runChatCommand',
      idempotent: true,
      summary: 'Run a chat command (`/status`, `/workflow run <name> …`, `/approve`, …) in a conversation',
      description:
        'The commands every door shares: ' +
        COMMANDS.map((command) => `\`${command.usage}\``).join(', ') +
        '. An unknown `/word` answers with the help (`ok: false`); text that is not a command is refused (400 ' +
        '`not_a_command`): send it as a message instead.',
      tags: ['conversations'],
      params: conversationParams,
      body: StrictObject({
        text: Type.String({ minLength: 1, maxLength: MAX_COMMAND_LENGTH, pattern: '^\\s*/' }),
      }),
      responses: {
        200: { description: 'the command ran, or was refused with its reason', schema: CommandReply },
        404: problemResponse('no conversation with that id'),
        409: problemResponse('conversation_deleted: the conversation was deleted'),
      },
      handler: async (request) => {
        const { params, body, ctx, log } = request;
        const reply = await runCommand(
          { ...services, context: { ...services.context, logger: log } },
          { conversationId: params.id, actor: requestActor(ctx) },
          body.text,
        );
        if (!reply) {
          throw ServiceError.invalid('not_a_command', 'This text is not a command: send it as a message.', [
            { path: '/body/text', message: 'is not a command' },
          ]);
        }
        return { body: reply };
      },
    }),
  );
}
