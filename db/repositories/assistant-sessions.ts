import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { nowIso, toIso, toIsoOrNull } from '../rows.js';

export type AssistantName = 'claude' | 'codex';

export interface AssistantSession {
  id: string;
  conversationId: string;
  codebaseId: string | null;
  assistant: AssistantName;
  providerSessionId: string | null;
  cwd: string | null;
  status: 'active' | 'ended';
  lastActivityAt: string;
  createdAt: string;
  endedAt: string | null;
}

interface SessionRow {
  id: string;
  conversation_id: string;
  codebase_id: string | null;
  assistant: AssistantName;
  provider_session_id: string | null;
  cwd: string | null;
  status: 'active' | 'ended';
  last_activity_at: unknown;
  created_at: unknown;
  ended_at: unknown;
}

function fromRow(row: SessionRow): AssistantSession {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    codebaseId: row.codebase_id,
    assistant: row.assistant,
    providerSessionId: row.provider_session_id,
    cwd: row.cwd,
    status: row.status,
    lastActivityAt: toIso(row.last_activity_at),
    createdAt: toIso(row.created_at),
    endedAt: toIsoOrNull(row.ended_at),
  };
}

export async function createAssistantSession(
  knex: Knex,
  input: {
    conversationId: string;
    codebaseId?: string | null;
    assistant: AssistantName;
    cwd?: string | null;
  },
): Promise<AssistantSession> {
  const now = nowIso();
  const row: SessionRow = {
    id: randomUUID(),
    conversation_id: input.conversationId,
    codebase_id: input.codebaseId ?? null,
    assistant: input.assistant,
    provider_session_id: null,
    cwd: input.cwd ?? null,
    status: 'active',
    last_activity_at: now,
    created_at: now,
    ended_at: null,
  };
  await knex('assistant_sessions').insert(row);
  return fromRow(row);
}

export async function findActiveSession(
  knex: Knex,
  conversationId: string,
): Promise<AssistantSession | undefined> {
  const row = await knex<SessionRow>('assistant_sessions')
    .where({ conversation_id: conversationId, status: 'active' })
    .orderBy('created_at', 'desc')
    .first();
  return row ? fromRow(row) : undefined;
}

/** Stores the provider's id so the next turn resumes the same context. */
export async function recordProviderSession(
  knex: Knex,
  id: string,
  providerSessionId: string,
): Promise<void> {
  await knex('assistant_sessions')
    .where({ id })
    .update({ provider_session_id: providerSessionId, last_activity_at: nowIso() });
}

export async function endSession(knex: Knex, id: string): Promise<void> {
  await knex('assistant_sessions')
    .where({ id, status: 'active' })
    .update({ status: 'ended', ended_at: nowIso() });
}

/** Retention: removes sessions whose last activity is older than the cutoff; returns how many. */
export async function deleteSessionsInactiveSince(knex: Knex, cutoffIso: string): Promise<number> {
  return knex('assistant_sessions').where('last_activity_at', '<', cutoffIso).delete();
}
