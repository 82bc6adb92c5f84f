import { defineSignal } from '@temporalio/workflow';
import type { MessageSignal } from '../../domain/conversations/conversation-workflow.js';

// The signal a conversation execution takes, defined once: the workflow sets its handler and
// services/conversations/conversation-client.ts sends it. The name is part of saved histories.
export const messageSignal = defineSignal<[MessageSignal]>('message');

/** Asks the conversation to cancel the turn of this message, if it is the one running. */
export const cancelTurnSignal = defineSignal<[{ messageId: number }]>('cancelTurn');
