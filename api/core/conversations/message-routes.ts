import {
  ComponentRef,
  decodeCursor,
  defineRoute,
  defineRoutes,
  encodeCursor,
  pageLimit,
  pageQueryProperties,
  problemResponse,
  StrictObject,
  StringEnum,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import {
  cancelRunningTurn,
  listMessages,
  postMessage,
  type CancelTurn,
  type TurnDispatch,
} from '../../../services/conversations/messages.js';
import { messageWire } from '../../../domain/conversations/wire.js';
import { conversationParams } from './conversation-routes.js';
import { MessageAccepted, MessagePage } from './conversation-schemas.js';

export interface MessageRouteDependencies extends TurnDispatch {
  context: ServiceContext;
  cancel: CancelTurn;
}

const TurnCancelling = StrictObject({
  message_id: Type.Integer({ description: 'the message whose turn is being cancelled' }),
  conversation_id: Type.String(),
  status: StringEnum(['cancelling']),
});

export const MAX_MESSAGE_LENGTH = 200_000;
const PAGE = { default: 50, max: 500 };
// `limit` is wrapped in Type.Optional, as every defaulted query field: clients need not send it.
const { limit: pageSize, before } = pageQueryProperties({ ...PAGE, cursorField: 'before' });

export function messageRoutes(deps: MessageRouteDependencies): RouteDefinition[] {
  const { context } = deps;
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/conversations/{id}/messages',
      operationId: 'listMessages',
      summary: 'Messages of a conversation, newest first, in pages',
      description:
        'Pass `nextCursor` as `before` for the next older page. Pages are keyed on the message id, so messages ' +
        'arriving meanwhile never shift or repeat a page.',
      tags: ['conversations'],
      params: conversationParams,
      query: StrictObject({ limit: Type.Optional(pageSize), before }),
      responses: {
        200: { description: 'a page of messages', schema: ComponentRef('MessagePage', MessagePage) },
      },
      handler: async ({ params, query }) => {
        const beforeId =
          query.before === undefined
            ? undefined
            : (decodeCursor(query.before, ['number'], 'before')[0] as number);
        const page = await listMessages(context, params.id, {
          beforeId,
          limit: pageLimit(query.limit, PAGE),
        });
        return {
          body: {
            items: page.items.map(messageWire),
            ...(page.next === undefined ? {} : { nextCursor: encodeCursor([page.next]) }),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/conversations/{id}/message',
      operationId: 'sendMessage',
      idempotent: true,
      summary: 'Send a message; the answer streams on /api/stream/{id} and lands in the messages',
      description:
        'Answers 202 once the message is stored. Turns run one at a time per conversation, in arrival order, and at ' +
        'most MAX_CONCURRENT_CONVERSATIONS at once; the rest wait.',
      tags: ['conversations'],
      params: conversationParams,
      body: StrictObject({
        message: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH, pattern: '\\S' }),
      }),
      responses: {
        202: {
          description: 'stored; its turn started or is queued',
          schema: ComponentRef('MessageAccepted', MessageAccepted),
        },
      },
      handler: async ({ params, body, log }) => {
        // The request's logger, so a deferred dispatch is logged with the request id.
        const posted = await postMessage({ ...context, logger: log }, deps, params.id, body.message);
        return {
          status: 202,
          body: {
            message_id: posted.message.id,
            conversation_id: posted.conversation.platformConversationId,
            ...posted.place,
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/conversations/{id}/cancel',
      operationId: 'cancelTurn',
      summary: 'Cancel the turn running now: the assistant stops, its output so far is kept',
      description:
        'The turn ends `cancelled` (event `turn_cancelled` on the stream) within a heartbeat of the assistant, about ' +
        '10 s at most; queued messages are answered next as usual.',
      tags: ['conversations'],
      params: conversationParams,
      responses: {
        202: { description: 'the cancel was handed to the conversation', schema: TurnCancelling },
        404: problemResponse('no conversation with that id'),
        409: problemResponse('no_turn_running: no turn of this conversation is running'),
      },
      handler: async ({ params }) => {
        const cancelling = await cancelRunningTurn(context, params.id, deps.cancel);
        return {
          status: 202,
          body: {
            message_id: cancelling.messageId,
            conversation_id: cancelling.conversationId,
            status: 'cancelling',
          },
        };
      },
    }),
  );
}
