import type { ActivityDependencies } from '../index.js';
import { abandonTurn, conversationState, generateConversationTitle } from './conversation-activities.js';
import { runAssistantTurn } from './run-assistant-turn.js';
import type { AbandonTurnInput, TurnInput } from '../../domain/conversations/conversation-workflow.js';

/** Short conversation activities, on the core queue. */
export function createConversationActivities(deps: ActivityDependencies) {
  return {
    conversationState: (conversationId: string) => conversationState(deps, conversationId),
    generateConversationTitle: (input: TurnInput) => generateConversationTitle(deps, input),
    abandonTurn: (input: AbandonTurnInput) => abandonTurn(deps, input),
  };
}

/** The assistant turn, on the assistant queue whose worker limit is the concurrency limit. */
export function createTurnActivities(deps: ActivityDependencies) {
  return { runAssistantTurn: (input: TurnInput) => runAssistantTurn(deps, input) };
}

export type ConversationActivities = ReturnType<typeof createConversationActivities>;
export type TurnActivities = ReturnType<typeof createTurnActivities>;
