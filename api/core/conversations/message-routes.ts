import {
  decodeCursor,
  defineRoute,
  defineRoutes,
  page,
  pageQueryProperties,
  type RouteDefinition,
} from '../../http/index.js';
import type { Database } from '../../../db/connection.js';
import type { Logger } from '../../../config/logger.js';
import { touchLiveConversation } from '../../../db/repositories/conversations.js';
import { appendEvent } from '../../../db/repositories/events.js';
import {
  appendMessage,
  countQueuedBefore,
  countTurns,
  countTurnsAhead,
  listMessagesBefore,
  type Message,
} from '../../../db/repositories/messages.js';
import { messageWire } from '../../../domain/conversations/wire.js';
import { conversationParams, deletedProblem, existingConversation } from './conversation-routes.js';
import type { DispatchTurn } from '../../../services/conversations/conversation-client.js';

export interface MessageRouteDependencies {
  db: Database;
  logger: Logger;
  dispatch: DispatchTurn;
  /** MAX_CONCURRENT_CONVERSATIONS, to tell a caller whether its turn starts or waits. */
  maxConcurrent: number;
}

export const MAX_MESSAGE_LENGTH = 200_000;
const PAGE = { default: 50, max: 500 };

/** Stores the message and its `message` event together: once answered 202, it is never lost. */
async function storeUserMessage(
  db: Database,
  conversationId: string,
  content: string,
): Promise<Message | undefined> {
  return db.knex.transaction(async (trx) => {
    if (!(await touchLiveConversation(trx, conversationId))) return undefined;
    const message = await appendMessage(trx, { conversationId, role: 'user', content, turnStatus: 'queued' });
    await appendEvent(trx, {
      streamKey: conversationId,
      type: 'message',
      payload: { messageId: message.id, message: messageWire(message) },
    });
    return message;
  });
}

/** Whether the turn starts now, or waits behind an earlier turn of the conversation or for a free session. */
async function placeInLine(deps: MessageRouteDependencies, message: Message) {
  const { knex } = deps.db;
  const [ahead, turns] = await Promise.all([
    countTurnsAhead(knex, message.conversationId, message.id),
    countTurns(knex),
  ]);
  if (ahead === 0 && turns.active < deps.maxConcurrent) return { status: 'started' as const, position: 0 };
  return { status: 'queued' as const, position: (await countQueuedBefore(knex, message.id)) + 1 };
}

export function messageRoutes(deps: MessageRouteDependencies): RouteDefinition[] {
  const { db } = deps;
  return defineRoutes(
    defineRoute<{ params: { id: string }; query: { limit: number; before?: string } }>({
      method: 'GET',
      path: '/api/conversations/{id}/messages',
      operationId: 'listMessages',
      summary: 'Messages of a conversation, newest first, in pages',
      description:
        'Pass `nextCursor` as `before` for the next older page. Pages are keyed on the message id, so messages ' +
        'arriving meanwhile never shift or repeat a page.',
      tags: ['conversations'],
      params: conversationParams,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: pageQueryProperties({ ...PAGE, cursorField: 'before' }),
      },
      responses: {
        200: { description: 'a page of messages', schema: { $ref: '#/components/schemas/MessagePage' } },
      },
      handler: async ({ params, query }) => {
        const conversation = await existingConversation(db, params.id);
        const beforeId =
          query.before === undefined
            ? undefined
            : (decodeCursor(query.before, ['number'], 'before')[0] as number);
        const rows = await listMessagesBefore(db.knex, conversation.id, { beforeId, limit: query.limit + 1 });
        const result = page(rows, query.limit, (row) => [row.id]);
        return { body: { ...result, items: result.items.map(messageWire) } };
      },
    }),
    defineRoute<{ params: { id: string }; body: { message: string } }>({
      method: 'POST',
      path: '/api/conversations/{id}/message',
      operationId: 'sendMessage',
      summary: 'Send a message; the answer streams on /api/stream/{id} and lands in the messages',
      description:
        'Answers 202 once the message is stored. Turns run one at a time per conversation, in arrival order, and at ' +
        'most MAX_CONCURRENT_CONVERSATIONS at once; the rest wait.',
      tags: ['conversations'],
      params: conversationParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['message'],
        properties: {
          message: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_LENGTH, pattern: '\\S' },
        },
      },
      responses: {
        202: {
          description: 'stored; its turn started or is queued',
          schema: { $ref: '#/components/schemas/MessageAccepted' },
        },
      },
      handler: async ({ params, body, log }) => {
        const conversation = await existingConversation(db, params.id);
        if (conversation.deletedAt) throw deletedProblem(conversation);
        const message = await storeUserMessage(db, conversation.id, body.message);
        if (!message) throw deletedProblem(conversation);
        const place = await placeInLine(deps, message);
        try {
          await deps.dispatch(conversation.id, message.id);
        } catch (error) {
          // Stored is accepted: the worker's sweep starts the conversation's workflow later.
          log.warn({
            event: 'conversation.dispatch_deferred',
            conversationId: conversation.id,
            messageId: message.id,
            err: (error as Error).message,
          });
        }
        return {
          status: 202,
          body: { message_id: message.id, conversation_id: conversation.platformConversationId, ...place },
        };
      },
    }),
  );
}
