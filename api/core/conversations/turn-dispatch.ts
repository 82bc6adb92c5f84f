import type { Client } from '@temporalio/client';
import {
  CONVERSATION_WORKFLOW_TYPE,
  MESSAGE_SIGNAL,
  conversationWorkflowId,
  type ConversationWorkflowInput,
  type MessageSignal,
} from '../../../domain/conversations/conversation-workflow.js';

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
      signal: MESSAGE_SIGNAL,
      signalArgs,
    });
  };
}
