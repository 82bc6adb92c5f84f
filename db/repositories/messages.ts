import type { Knex } from 'knex';
import { countOf, nowIso, parseJson, toIso, toNumber } from '../rows.js';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system' | 'error';
export type TurnStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface Message {
  id: number;
  conversationId: string;
  role: MessageRole;
  content: string;
  metadata: Record<string, unknown>;
  turnStatus: TurnStatus | null;
  createdAt: string;
}

export interface NewMessage {
  conversationId: string;
  role: MessageRole;
  content: string;
  metadata?: Record<string, unknown>;
  turnStatus?: TurnStatus | null;
}

interface MessageRow {
  id: number | string;
  conversation_id: string;
  role: MessageRole;
  content: string;
  metadata: string | null;
  turn_status: TurnStatus | null;
  created_at: unknown;
}

function fromRow(row: MessageRow): Message {
  return {
    id: toNumber(row.id),
    conversationId: row.conversation_id,
    role: row.role,
    content: row.content,
    metadata: parseJson(row.metadata, {}),
    turnStatus: row.turn_status,
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
      created_at: nowIso(),
    })
    .returning('*')) as MessageRow[];
  return fromRow(row!);
}

/**
 * Newest-first page of a conversation's messages, strictly older than `beforeId` when given.
 * Keyed on the increasing id, so messages arriving meanwhile never shift a page.
 */
export async function listMessagesBefore(
  knex: Knex,
  conversationId: string,
  options: { beforeId?: number; limit: number },
): Promise<Message[]> {
  const query = knex<MessageRow>('messages').where('conversation_id', conversationId);
  if (options.beforeId !== undefined) query.andWhere('id', '<', options.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(options.limit);
  return rows.map(fromRow);
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
export async function countTurns(knex: Knex): Promise<{ active: number; queued: number }> {
  const rows = (await knex('messages')
    .select('turn_status')
    .count({ count: '*' })
    .whereIn('turn_status', ['running', 'queued'])
    .groupBy('turn_status')) as Array<{ turn_status: TurnStatus; count: unknown }>;
  const byStatus = new Map(rows.map((r) => [r.turn_status, countOf(r)]));
  return { active: byStatus.get('running') ?? 0, queued: byStatus.get('queued') ?? 0 };
}
