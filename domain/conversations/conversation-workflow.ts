// Names and shapes shared by the conversation workflow, its activities and the API that signals it.
import { HEARTBEAT_TIMEOUT_MS } from '../heartbeats.js';

export const CONVERSATION_WORKFLOW_TYPE = 'conversation';

/** Deterministic from the database id, so every API replica signals the same execution. */
export function conversationWorkflowId(conversationId: string): string {
  return `conversation-${conversationId}`;
}

export interface MessageSignal {
  /** The stored user message whose turn is owed. */
  messageId: number;
}

export interface ConversationWorkflowInput {
  conversationId: string;
  /** Turns carried over a continue-as-new. */
  pending?: number[];
  /** Whether the conversation still needs a generated title. */
  needsTitle?: boolean;
  /** An idle conversation's workflow ends after this long; the next message starts it again. */
  idleTimeoutMs?: number;
  /** Turns per run before continue-as-new keeps the history short. */
  turnsPerRun?: number;
  /** How soon a turn whose worker died is run again. */
  turnHeartbeatTimeoutMs?: number;
}

export const DEFAULT_CONVERSATION_IDLE_MS = 15 * 60_000;
export const DEFAULT_TURNS_PER_RUN = 100;
export const DEFAULT_TURN_HEARTBEAT_TIMEOUT_MS = HEARTBEAT_TIMEOUT_MS;
/** Attempts of one turn before it is marked failed (a crash mid-turn uses one). */
export const TURN_ATTEMPTS = 5;

export interface AbandonTurnInput {
  conversationId: string;
  messageId: number;
  reason: string;
}

export interface ConversationState {
  /** Unfinished turns, oldest first. */
  openTurnIds: number[];
  needsTitle: boolean;
}

export interface TurnInput {
  conversationId: string;
  messageId: number;
  /**
   * How many usage-limit waits came before this try of the turn (absent: none). Each round's
   * attempts count after the last round's, so a try after a wait takes the turn over.
   */
  round?: number;
  /** Whether a usage limit may be waited out (false: the turn fails with it, as any error). */
  mayWait?: boolean;
}

export type TurnOutcome = 'completed' | 'failed' | 'already_finished' | 'superseded';

export type TurnResult =
  | { outcome: TurnOutcome }
  /** The assistant's usage limit: the turn stays running and is tried again once it resets (ISO). */
  | { outcome: 'usage_limited'; resetAt: string };
