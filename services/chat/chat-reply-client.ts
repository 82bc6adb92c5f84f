import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  CHAT_REPLY_WORKFLOW_TYPE,
  chatReplyWorkflowId,
  type ChatReplyInput,
} from '../../domain/chat/chat-reply.js';
import type { StartChatReply } from './chat-inbound.js';

/**
 * Starts chat replies as workflows on the core queue. The id derives from the delivery and a
 * closed workflow's id is not reused, so a redelivered update never answers twice.
 */
export function chatReplyStarter(client: Client, taskQueue: string): StartChatReply {
  return async (source, deliveryId, input: ChatReplyInput) => {
    try {
      await client.workflow.start(CHAT_REPLY_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: chatReplyWorkflowId(source, deliveryId),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}
