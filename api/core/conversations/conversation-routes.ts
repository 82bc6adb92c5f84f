import {
  ComponentRef,
  decodeCursor,
  defineRoute,
  defineRoutes,
  encodeCursor,
  nextPageLink,
  nextPageLinkHeader,
  pageLimit,
  pageQueryProperties,
  SerializedJson,
  type Static,
  StrictObject,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
} from '../../../services/conversations/conversations.js';
import type { ConversationPosition } from '../../../db/repositories/conversations.js';
import { conversationWire } from '../../../domain/conversations/wire.js';
import { conversationWorkflowId } from '../../../domain/conversations/conversation-workflow.js';
import { temporalUrlFor } from '../../../services/temporal-url.js';
import { Conversation, ConversationDetail, conversationJsonColumns } from './conversation-schemas.js';

export const conversationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const conversationRef = ComponentRef('Conversation', Conversation);
const codebaseIdField = Type.String({ minLength: 1, maxLength: 64 });

/** The list's body stays the spec's plain array; the next page is announced in a Link header. */
const LIST_PAGE = { default: 50, max: 200 };
// `limit` is wrapped in Type.Optional, as every defaulted query field: clients need not send it.
const { limit: listLimit, cursor: listCursor } = pageQueryProperties(LIST_PAGE);

function positionOf(cursor: string | undefined): ConversationPosition | undefined {
  if (cursor === undefined) return undefined;
  const [lastActivityAt, id] = decodeCursor(cursor, ['date-time', 'string']) as [string, string];
  return { lastActivityAt, id };
}

/** Create, list, read, rename and soft-delete conversations. */
export function conversationRoutes(context: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/conversations',
      operationId: 'listConversations',
      summary: 'Conversations, most recently active first',
      description:
        `At most \`limit\` conversations (default ${LIST_PAGE.default}). When more follow, the response carries ` +
        '`Link: <...>; rel="next"`: follow it (or pass its `cursor`) for the next page; it keeps the filters. A conversation active ' +
        'while you page moves to the front of the list, where the first page shows it.',
      tags: ['conversations'],
      query: StrictObject({
        codebase_id: Type.Optional(codebaseIdField),
        include_deleted: Type.Optional(
          Type.Boolean({ default: false, description: 'include soft-deleted conversations' }),
        ),
        q: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description:
              'only conversations whose title contains this text, ignoring case (`%` and `_` match themselves)',
          }),
        ),
        limit: Type.Optional(listLimit),
        cursor: listCursor,
      }),
      responses: {
        200: {
          description: 'a page of conversations',
          schema: Type.Array(conversationRef),
          headers: { Link: nextPageLinkHeader },
        },
      },
      handler: async ({ query, ctx }) => {
        const limit = pageLimit(query.limit, LIST_PAGE);
        const page = await listConversations(
          context,
          {
            codebaseId: query.codebase_id,
            includeDeleted: query.include_deleted,
            titleContains: query.q,
            after: positionOf(query.cursor),
            limit,
          },
          conversationJsonColumns,
        );
        const next = page.next && encodeCursor([page.next.lastActivityAt, page.next.id]);
        return {
          body: SerializedJson.ofItems<Static<typeof Conversation>>(page.items),
          headers: next ? { Link: nextPageLink(ctx, { cursor: next, limit }) } : undefined,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/conversations/{id}',
      operationId: 'getConversation',
      summary: 'One conversation (deleted ones too)',
      tags: ['conversations'],
      params: conversationParams,
      responses: {
        200: {
          description: 'the conversation',
          schema: ComponentRef('ConversationDetail', ConversationDetail),
        },
      },
      handler: async ({ params }) => {
        const conversation = await getConversation(context, params.id);
        return {
          body: {
            ...conversationWire(conversation),
            temporalUrl: temporalUrlFor(context, conversationWorkflowId(conversation.id)),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/conversations',
      operationId: 'createConversation',
      idempotent: true,
      summary: 'Start a conversation, optionally scoped to a codebase',
      description: 'Its turns run in a worktree of the codebase of their own (`cairn/thread-<hash>`).',
      tags: ['conversations'],
      body: StrictObject({
        codebase_id: Type.Optional(codebaseIdField),
        title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      }),
      bodyRequired: false,
      responses: { 201: { description: 'the new conversation', schema: conversationRef } },
      handler: async ({ body }) => {
        const conversation = await createConversation(context, {
          codebaseId: body?.codebase_id,
          title: body?.title,
        });
        return {
          status: 201,
          body: conversationWire(conversation),
          headers: { Location: `/api/conversations/${conversation.platformConversationId}` },
        };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/conversations/{id}',
      operationId: 'renameConversation',
      summary: 'Rename a conversation',
      tags: ['conversations'],
      params: conversationParams,
      body: StrictObject({ title: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) }),
      responses: { 200: { description: 'the renamed conversation', schema: conversationRef } },
      handler: async ({ params, body }) => ({
        body: conversationWire(await renameConversation(context, params.id, body.title)),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/conversations/{id}',
      operationId: 'deleteConversation',
      summary: 'Soft-delete a conversation: hidden from the list, messages kept, new messages refused',
      tags: ['conversations'],
      params: conversationParams,
      responses: { 200: { description: 'the deleted conversation', schema: conversationRef } },
      handler: async ({ params }) => ({
        body: conversationWire(await deleteConversation(context, params.id)),
      }),
    }),
  );
}
