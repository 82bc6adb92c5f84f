import { defineRoute, defineRoutes, HttpProblem, type RouteDefinition } from '../../http/index.js';
import type { Database } from '../../../db/connection.js';
import { findCodebase } from '../../../db/repositories/codebases.js';
import {
  createConversation,
  findConversationByRef,
  listConversations,
  renameConversation,
  softDeleteConversation,
  type Conversation,
} from '../../../db/repositories/conversations.js';
import { appendEvent } from '../../../db/repositories/events.js';
import { conversationWire } from '../../../domain/conversations/wire.js';

export const conversationParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 255 } },
  required: ['id'],
};
const conversationRef = { $ref: '#/components/schemas/Conversation' };

export async function existingConversation(db: Database, ref: string): Promise<Conversation> {
  const conversation = await findConversationByRef(db.knex, ref);
  if (!conversation) throw HttpProblem.notFound(`No conversation with id ${ref}.`);
  return conversation;
}

export function deletedProblem(conversation: Conversation): HttpProblem {
  return new HttpProblem({
    status: 409,
    code: 'conversation_deleted',
    detail: `Conversation ${conversation.platformConversationId} was deleted; start a new conversation.`,
  });
}

/** Create, list, read, rename and soft-delete conversations. */
export function conversationRoutes(db: Database): RouteDefinition[] {
  return defineRoutes(
    defineRoute<{ query: { codebase_id?: string; include_deleted?: boolean } }>({
      method: 'GET',
      path: '/api/conversations',
      operationId: 'listConversations',
      summary: 'Conversations, most recently active first',
      tags: ['conversations'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          codebase_id: { type: 'string', minLength: 1, maxLength: 64 },
          include_deleted: {
            type: 'boolean',
            default: false,
            description: 'include soft-deleted conversations',
          },
        },
      },
      responses: { 200: { description: 'conversations', schema: { type: 'array', items: conversationRef } } },
      handler: async ({ query }) => {
        const list = await listConversations(db.knex, {
          codebaseId: query.codebase_id,
          includeDeleted: query.include_deleted,
        });
        return { body: list.map(conversationWire) };
      },
    }),
    defineRoute<{ params: { id: string } }>({
      method: 'GET',
      path: '/api/conversations/{id}',
      operationId: 'getConversation',
      summary: 'One conversation (deleted ones too)',
      tags: ['conversations'],
      params: conversationParams,
      responses: { 200: { description: 'the conversation', schema: conversationRef } },
      handler: async ({ params }) => ({ body: conversationWire(await existingConversation(db, params.id)) }),
    }),
    defineRoute<{ body: { codebase_id?: string; title?: string } | undefined }>({
      method: 'POST',
      path: '/api/conversations',
      operationId: 'createConversation',
      summary: 'Start a conversation, optionally scoped to a codebase',
      description: 'Its turns run in a worktree of the codebase of their own (`cairn/thread-<hash>`).',
      tags: ['conversations'],
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          codebase_id: { type: 'string', minLength: 1, maxLength: 64 },
          title: { type: 'string', minLength: 1, maxLength: 500 },
        },
      },
      bodyRequired: false,
      responses: { 201: { description: 'the new conversation', schema: conversationRef } },
      handler: async ({ body }) => {
        const codebaseId = body?.codebase_id;
        if (codebaseId && !(await findCodebase(db.knex, codebaseId))) {
          throw new HttpProblem({
            status: 404,
            code: 'codebase_not_found',
            detail: `No codebase with id ${codebaseId}.`,
            errors: [{ path: '/body/codebase_id', message: 'names no codebase' }],
          });
        }
        const conversation = await createConversation(db.knex, {
          platform: 'web',
          codebaseId: codebaseId ?? null,
          title: body?.title ?? null,
        });
        return {
          status: 201,
          body: conversationWire(conversation),
          headers: { Location: `/api/conversations/${conversation.platformConversationId}` },
        };
      },
    }),
    defineRoute<{ params: { id: string }; body: { title: string } }>({
      method: 'PATCH',
      path: '/api/conversations/{id}',
      operationId: 'renameConversation',
      summary: 'Rename a conversation',
      tags: ['conversations'],
      params: conversationParams,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['title'],
        properties: { title: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S' } },
      },
      responses: { 200: { description: 'the renamed conversation', schema: conversationRef } },
      handler: async ({ params, body }) => {
        const conversation = await existingConversation(db, params.id);
        if (conversation.deletedAt) throw deletedProblem(conversation);
        const title = body.title.trim();
        const renamed = await db.knex.transaction(async (trx) => {
          const updated = await renameConversation(trx, conversation.id, title);
          await appendEvent(trx, { streamKey: conversation.id, type: 'title', payload: { title } });
          return updated;
        });
        return { body: conversationWire(renamed ?? conversation) };
      },
    }),
    defineRoute<{ params: { id: string } }>({
      method: 'DELETE',
      path: '/api/conversations/{id}',
      operationId: 'deleteConversation',
      summary: 'Soft-delete a conversation: hidden from the list, messages kept, new messages refused',
      tags: ['conversations'],
      params: conversationParams,
      responses: { 200: { description: 'the deleted conversation', schema: conversationRef } },
      handler: async ({ params }) => {
        const conversation = await existingConversation(db, params.id);
        await db.knex.transaction(async (trx) => {
          if (await softDeleteConversation(trx, conversation.id)) {
            await appendEvent(trx, { streamKey: conversation.id, type: 'conversation_deleted', payload: {} });
          }
        });
        return { body: conversationWire(await existingConversation(db, conversation.id)) };
      },
    }),
  );
}
