import type { Knex } from 'knex';
import {
  createAssistantSession,
  endSession,
  findActiveSession,
  recordProviderSession,
  type AssistantSession,
} from '../../db/repositories/assistant-sessions.js';
import type { AssistantName } from '../../infra/assistants/types.js';

export interface SessionForTurn {
  session: AssistantSession;
  /** The provider's session to resume; undefined for a fresh context. */
  resumeId?: string;
}

/**
 * The assistant session a turn continues: the conversation's active one when it is the same
 * assistant in the same folder, else a new one (the old one ends: its context belongs to another
 * assistant or folder).
 */
export async function sessionForTurn(
  knex: Knex,
  input: { conversationId: string; codebaseId: string | null; assistant: AssistantName; cwd: string },
): Promise<SessionForTurn> {
  const active = await findActiveSession(knex, input.conversationId);
  if (active && active.assistant === input.assistant && active.cwd === input.cwd) {
    return { session: active, resumeId: active.providerSessionId ?? undefined };
  }
  if (active) await endSession(knex, active.id);
  const session = await createAssistantSession(knex, input);
  return { session };
}

/** Stores the provider session a completed turn ended in, for the next turn to resume. */
export async function rememberProviderSession(
  knex: Knex,
  session: AssistantSession,
  providerSessionId: string,
): Promise<void> {
  if (session.providerSessionId !== providerSessionId) {
    await recordProviderSession(knex, session.id, providerSessionId);
  }
}

/** Ends a session whose provider context is lost and opens a new one in its place. */
export async function startFreshSession(knex: Knex, stale: AssistantSession): Promise<AssistantSession> {
  await endSession(knex, stale.id);
  return createAssistantSession(knex, {
    conversationId: stale.conversationId,
    codebaseId: stale.codebaseId,
    assistant: stale.assistant,
    cwd: stale.cwd,
  });
}
