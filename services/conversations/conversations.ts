import { findCodebase } from '../../db/repositories/codebases.js';
import {
  createConversation as insertConversation,
  findConversationByRef,
  listConversationsAsJson,
  renameConversation as renameConversationRow,
  softDeleteConversation,
  type Conversation,
  type ConversationPosition,
} from '../../db/repositories/conversations.js';
import { appendEvent } from '../../db/repositories/events.js';
import type { JsonProjection } from '../../db/json-projection.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { readJsonPage, type KeysetPage } from '../keyset-page.js';

/** The conversation a public `{id}` names (its record id or web platform id), deleted ones too. */
export async function getConversation(context: ServiceContext, ref: string): Promise<Conversation> {
  const conversation = await findConversationByRef(context.db.reader, ref);
  if (!conversation) throw ServiceError.notFound(`No conversation with id ${ref}.`);
  return conversation;
}

/** Why a deleted conversation refuses new messages and renames. */
export function conversationDeleted(conversation: Conversation): ServiceError {
  return ServiceError.conflict(
    `Conversation ${conversation.platformConversationId} was deleted; start a new conversation.`,
    undefined,
    'conversation_deleted',
  );
}

/** A conversation that still takes messages and renames. */
export async function getLiveConversation(context: ServiceContext, ref: string): Promise<Conversation> {
  const conversation = await getConversation(context, ref);
  if (conversation.deletedAt) throw conversationDeleted(conversation);
  return conversation;
}

/** Starts a web conversation, scoped to a codebase when one is named. */
export async function createConversation(
  context: ServiceContext,
  input: { codebaseId?: string; title?: string },
): Promise<Conversation> {
  const { knex } = context.db;
  if (input.codebaseId && !(await findCodebase(knex, input.codebaseId))) {
    throw new ServiceError({
      kind: 'not_found',
      code: 'codebase_not_found',
      detail: `No codebase with id ${input.codebaseId}.`,
      errors: [{ path: '/body/codebase_id', message: 'names no codebase' }],
    });
  }
  return insertConversation(knex, {
    platform: 'web',
    codebaseId: input.codebaseId ?? null,
    title: input.title ?? null,
  });
}

export interface ConversationListRequest {
  codebaseId?: string;
  includeDeleted?: boolean;
  /** Only conversations whose title contains this text, ignoring case. */
  titleContains?: string;
  /** Continue after this position (from the previous page's `next`). */
  after?: ConversationPosition;
  limit: number;
}

/**
 * One page of conversations, most recently active first, each written by the database as the JSON
 * object `projection` describes (the list goes to the client as it is).
 */
export function listConversations(
  context: ServiceContext,
  request: ConversationListRequest,
  projection: JsonProjection,
): Promise<KeysetPage<string, ConversationPosition>> {
  return readJsonPage(
    request.limit,
    (limit) => listConversationsAsJson(context.db.reader, { ...request, limit }, projection),
    (row) => row.position(),
  );
}

/** Renames a live conversation; the rename and its `title` event commit together. */
export async function renameConversation(
  context: ServiceContext,
  ref: string,
  title: string,
): Promise<Conversation> {
  const conversation = await getLiveConversation(context, ref);
  const trimmed = title.trim();
  const renamed = await context.db.knex.transaction(async (trx) => {
    const updated = await renameConversationRow(trx, conversation.id, trimmed);
    await appendEvent(trx, { streamKey: conversation.id, type: 'title', payload: { title: trimmed } });
    return updated;
  });
  return renamed ?? conversation;
}

/**
 * Soft delete: hidden from the list, messages and events kept, new messages refused. Deleting
 * twice changes nothing and writes no second event.
 */
export async function deleteConversation(context: ServiceContext, ref: string): Promise<Conversation> {
  const conversation = await getConversation(context, ref);
  await context.db.knex.transaction(async (trx) => {
    if (await softDeleteConversation(trx, conversation.id)) {
      await appendEvent(trx, { streamKey: conversation.id, type: 'conversation_deleted', payload: {} });
    }
  });
  return getConversation(context, conversation.id);
}
