import type { Client } from '@temporalio/client';
import type { ChatDoorServices } from '../chat/chat-inbound.js';
import { chatReplyStarter } from '../chat/chat-reply-client.js';
import { turnCanceller, turnDispatcher } from '../conversations/conversation-client.js';
import { runClient } from '../runs/run-client.js';
import type { ServiceContext } from '../context.js';

/**
 * What a code-host request acts through: the chat doors' services (commands, turns, the durable
 * reply), built from the worker's own Temporal client, since requests are handled in an activity.
 */
export function codeHostDoorServices(
  context: ServiceContext,
  client: Client,
  options: { taskQueue: string; searchAttributes: boolean },
): ChatDoorServices {
  const registration = { client, taskQueue: options.taskQueue, searchAttributes: options.searchAttributes };
  return {
    commands: { context, runs: runClient(registration), cancelTurn: turnCanceller(client), registration },
    turns: {
      dispatch: turnDispatcher({ client, taskQueue: options.taskQueue }),
      maxConcurrent: context.config.global().effective.concurrency.maxConversations,
    },
    startReply: chatReplyStarter(client, options.taskQueue),
  };
}
