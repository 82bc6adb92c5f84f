import type { ServiceContext } from '../../services/context.js';
import {
  abandonTurn,
  cancelWaitingTurn,
  conversationState,
  generateConversationTitle,
} from '../../services/conversations/workflow-bookkeeping.js';
import { runAssistantTurn } from './run-assistant-turn.js';
import type { AbandonTurnInput, TurnInput } from '../../domain/conversations/conversation-workflow.js';

/** Short conversation activities, on the core queue. */
export function createConversationActivities(deps: ServiceContext) {
  return {
    conversationState: (conversationId: string) => conversationState(deps, conversationId),
    generateConversationTitle: (input: TurnInput) => generateConversationTitle(deps, input),
    abandonTurn: (input: AbandonTurnInput) => abandonTurn(deps, input),
    cancelWaitingTurn: (input: { conversationId: string; messageId: number }) =>
      cancelWaitingTurn(deps, input),
  };
}

/** The assistant turn, on the assistant queue whose worker limit is the concurrency limit. */
export function createTurnActivities(deps: ServiceContext) {
  return { runAssistantTurn: (input: TurnInput) => runAssistantTurn(deps, input) };
}

export type ConversationActivities = ReturnType<typeof createConversationActivities>;
export type TurnActivities = ReturnType<typeof createTurnActivities>;
