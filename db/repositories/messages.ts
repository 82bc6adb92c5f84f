import type { Knex } from 'knex';
import { limitClause, SqlConditions } from '../sql-conditions.js';
import { toReader, type ReadSource } from '../sql-reader.js';
import { countOf, nowIso, parseJson, toIso, toNumber } from '../rows.js';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system' | 'error';
export type TurnStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Message {
  id: number;
  conversationId: string;
  role: MessageRole;
  content: string;
  metadata: Record<string, unknown>;
  turnStatus: TurnStatus | null;
  /** Output rows point at the user message whose turn produced them. */
  replyToMessageId: number | null;
  createdAt: string;
}

export interface NewMessage {
  conversationId: string;
  role: MessageRole;
  content: string;
  metadata?: Record<string, unknown>;
  turnStatus?: TurnStatus | null;
  replyToMessageId?: number | null;
}

export interface MessageRow {
  id: number | string;
  conversation_id: string;
  role: MessageRole;
  content: string;
  metadata: string | null;
  turn_status: TurnStatus | null;
  reply_to_message_id: number | string | null;
  created_at: unknown;
}

export function messageFromRow(row: MessageRow): Message {
  return {
    id: toNumber(row.id),
    conversationId: row.conversation_id,
    role: row.role,
    content: row.content,
    metadata: parseJson(row.metadata, {}),
    turnStatus: row.turn_status,
    replyToMessageId: row.reply_to_message_id === null ? null : toNumber(row.reply_to_message_id),
    createdAt: toIso(row.created_at),
  };
}

export async function appendMessage(knex: Knex, input: NewMessage): Promise<Message> {
  const [row] = (await knex('messages')
    .insert({
      conversation_id: input.conversationId,
      role: input.role,
      content: input.content,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      turn_status: input.turnStatus ?? null,
      reply_to_message_id: input.replyToMessageId ?? null,
      created_at: nowIso(),
    })
    .returning('*')) as MessageRow[];
  return messageFromRow(row!);
}

/**
 * Newest-first page of a conversation's messages, strictly older than `beforeId` when given.
 * Keyed on the increasing id, so messages arriving meanwhile never shift a page.
 */
export async function listMessagesBefore(
  source: ReadSource,
  conversationId: string,
  options: { beforeId?: number; limit: number },
): Promise<Message[]> {
  const conditions = new SqlConditions().add('conversation_id = ?', conversationId);
  if (options.beforeId !== undefined) conditions.add('id < ?', options.beforeId);
  const rows = await toReader(source).all<MessageRow>(
    `select * from messages${conditions.where} order by id desc${limitClause(options.limit)}`,
    conditions.params,
  );
  return rows.map(messageFromRow);
}

/** Compare-and-swap of a user message's turn status; false when it was not in `from`. */
export async function transitionTurn(
  knex: Knex,
  messageId: number,
  from: TurnStatus[],
  to: TurnStatus,
): Promise<boolean> {
  const changed = await knex('messages')
    .where('id', messageId)
    .whereIn('turn_status', from)
    .update({ turn_status: to });
  return changed > 0;
}

/** Exact counts for /health/concurrency: turns holding an assistant session, and turns waiting. */
export async function countTurns(source: ReadSource): Promise<{ active: number; queued: number }> {
  const rows = await toReader(source).all<{ turn_status: TurnStatus; count: unknown }>(
    "select turn_status, count(*) as count from messages where turn_status in ('running', 'queued') group by turn_status",
  );
  const byStatus = new Map(rows.map((r) => [r.turn_status, countOf(r)]));
  return { active: byStatus.get('running') ?? 0, queued: byStatus.get('queued') ?? 0 };
}

export async function findMessage(knex: Knex, id: number): Promise<Message | undefined> {
  const row = await knex<MessageRow>('messages').where('id', id).first();
  return row ? messageFromRow(row) : undefined;
}

/** Removes what an interrupted attempt of a turn stored, before the turn runs again. */
export async function deleteReplies(knex: Knex, userMessageId: number): Promise<number> {
  return knex('messages').where('reply_to_message_id', userMessageId).delete();
}

const OPEN_TURNS: TurnStatus[] = ['queued', 'running'];

/** The counts a message's place in line is told from (services/conversations/messages.ts). */
export interface TurnPlaceFigures {
  /** Open turns of its conversation accepted before it. */
  ahead: number;
  /** Turns holding an assistant session now, in every conversation. */
  active: number;
  /** Waiting turns of every conversation accepted before it. */
  queuedBefore: number;
}

/**
 * Where a just-stored turn stands, in one read: the open turns of its conversation accepted before
 * it, the turns holding an assistant session, and the waiting turns of every conversation accepted
 * before it. One statement, so a message's answer waits for one round trip here, not three.
 */
export async function turnPlaceFigures(
  source: ReadSource,
  conversationId: string,
  messageId: number,
): Promise<TurnPlaceFigures> {
  const row = await toReader(source).first<{ ahead: unknown; active: unknown; queued_before: unknown }>(
    "select (select count(*) from messages where conversation_id = ? and turn_status in ('queued', 'running')" +
      ' and id < ?) as ahead,' +
      " (select count(*) from messages where turn_status = 'running') as active," +
      " (select count(*) from messages where turn_status = 'queued' and id < ?) as queued_before",
    [conversationId, messageId, messageId],
  );
  return {
    ahead: toNumber(row?.ahead ?? 0),
    active: toNumber(row?.active ?? 0),
    queuedBefore: toNumber(row?.queued_before ?? 0),
  };
}

/** Waiting turns of every conversation accepted before this one. */
export async function countQueuedBefore(knex: Knex, messageId: number): Promise<number> {
  const row = await knex('messages')
    .count({ count: '*' })
    .where('turn_status', 'queued')
    .andWhere('id', '<', messageId)
    .first();
  return countOf(row as { count?: unknown });
}

/** Unfinished turns of one conversation, oldest first: what its workflow still owes. */
export async function openTurnIds(knex: Knex, conversationId: string): Promise<number[]> {
  const rows = (await knex('messages')
    .select('id')
    .where('conversation_id', conversationId)
    .whereIn('turn_status', OPEN_TURNS)
    .orderBy('id', 'asc')) as Array<{ id: unknown }>;
  return rows.map((row) => toNumber(row.id));
}

/** Conversations with unfinished turns, so a starting worker can make sure each has a workflow. */
export async function conversationsWithOpenTurns(knex: Knex): Promise<string[]> {
  const rows = (await knex('messages')
    .distinct('conversation_id')
    .whereIn('turn_status', OPEN_TURNS)) as Array<{ conversation_id: string }>;
  return rows.map((row) => row.conversation_id);
}

export async function countUserMessages(knex: Knex, conversationId: string): Promise<number> {
  const row = await knex('messages')
    .count({ count: '*' })
    .where({ conversation_id: conversationId, role: 'user' })
    .first();
  return countOf(row as { count?: unknown });
}

/**
 * Conversations whose oldest unfinished turn has waited since `cutoffIso` or earlier with no turn of
 * theirs running: either stuck behind a lost signal, or waiting for a free assistant session.
 */
export async function conversationsWaitingSince(knex: Knex, cutoffIso: string): Promise<string[]> {
  const running = knex('messages').select('conversation_id').where('turn_status', 'running');
  const rows = (await knex('messages')
    .distinct('conversation_id')
    .where('turn_status', 'queued')
    // At or before: with no wait asked for (a cutoff of now), a message of this millisecond counts.
    .andWhere('created_at', '<=', cutoffIso)
    .whereNotIn('conversation_id', running)) as Array<{ conversation_id: string }>;
  return rows.map((row) => row.conversation_id);
}

/** The message whose turn is running now in a conversation, if any. */
export async function runningTurnId(knex: Knex, conversationId: string): Promise<number | undefined> {
  const row = (await knex('messages')
    .select('id')
    .where({ conversation_id: conversationId, turn_status: 'running' })
    .orderBy('id')
    .first()) as { id: unknown } | undefined;
  return row === undefined ? undefined : Number(row.id);
}

/** The turns running now in the conversations of a codebase. */
export async function runningTurnsOfCodebase(
  knex: Knex,
  codebaseId: string,
): Promise<Array<{ conversationId: string; messageId: number }>> {
  const rows = (await knex('messages')
    .join('conversations', 'conversations.id', 'messages.conversation_id')
    .select('messages.id', 'messages.conversation_id')
    .where({ 'conversations.codebase_id': codebaseId, 'messages.turn_status': 'running' })) as Array<{
    id: unknown;
    conversation_id: string;
  }>;
  return rows.map((row) => ({ conversationId: row.conversation_id, messageId: Number(row.id) }));
}

/** How many of these messages still have a turn running. */
export async function countRunningTurns(knex: Knex, messageIds: number[]): Promise<number> {
  if (messageIds.length === 0) return 0;
  const row = (await knex('messages')
    .whereIn('id', messageIds)
    .andWhere('turn_status', 'running')
    .count({ count: '*' })
    .first()) as { count: unknown };
  return Number(row.count);
}
