import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  CONVERSATION_WORKFLOW_TYPE,
  conversationWorkflowId,
  type ConversationWorkflowInput,
  type MessageSignal,
} from '../../domain/conversations/conversation-workflow.js';
import { cancelTurnSignal, messageSignal } from '../../workflows/conversations/conversation-messages.js';
import { ServiceError } from '../service-error.js';

export interface TurnDispatchOptions {
  client: Client;
  /** The core task queue; turns run on its assistant queue. */
  taskQueue: string;
  /** Workflow settings tests shorten (idle end, heartbeat timeout). */
  workflowDefaults?: Omit<ConversationWorkflowInput, 'conversationId' | 'pending'>;
}

/** Hands a stored message to its conversation's workflow, starting the workflow when it is not running. */
export type DispatchTurn = (conversationId: string, messageId: number) => Promise<void>;

export function turnDispatcher(options: TurnDispatchOptions): DispatchTurn {
  return async (conversationId, messageId) => {
    const signalArgs: [MessageSignal] = [{ messageId }];
    const args: [ConversationWorkflowInput] = [{ ...options.workflowDefaults, conversationId }];
    await options.client.workflow.signalWithStart(CONVERSATION_WORKFLOW_TYPE, {
      workflowId: conversationWorkflowId(conversationId),
      taskQueue: options.taskQueue,
      args,
      signal: messageSignal,
      signalArgs,
    });
  };
}

/** Signals a conversation's workflow to cancel the turn of one message (services/conversations/messages.ts). */
export function turnCanceller(client: Client): (conversationId: string, messageId: number) => Promise<void> {
  return async (conversationId, messageId) => {
    try {
      await client.workflow
        .getHandle(conversationWorkflowId(conversationId))
        .signal(cancelTurnSignal, { messageId });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      // A turn marked running with no workflow behind it: nothing runs that could be stopped.
      throw ServiceError.conflict('No turn of this conversation is running.', undefined, 'no_turn_running');
    }
  };
}

/** Whether the conversation's workflow is running now (a sweep wakes only the ones that are not). */
export async function conversationWorkflowRunning(client: Client, conversationId: string): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(conversationWorkflowId(conversationId)).describe();
    return description.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
