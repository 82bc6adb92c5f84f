import type { ChatAddress } from './chat-address.js';

// What the chat reply workflow delivers: a command's answer, or an assistant turn followed as it
// runs. Shared by the service that starts it and the workflow code (pure data).

export const CHAT_REPLY_WORKFLOW_TYPE = 'chatReplyWorkflow';

export type ChatStreamingMode = 'stream' | 'batch';

export interface ChatTextReply {
  kind: 'text';
  address: ChatAddress;
  markdown: string;
  replyTo?: string;
}

export interface ChatTurnReply {
  kind: 'turn';
  address: ChatAddress;
  conversationId: string;
  messageId: number;
  /** The journal id of the user's message: the turn's events come after it. */
  eventId: number;
  mode: ChatStreamingMode;
  /** BOT_DISPLAY_NAME, for batch mode's starting line. */
  botName: string;
  /** Set when the turn waits behind others. */
  queuedPosition?: number;
  replyTo?: string;
}

/** A command that started a run: its answer, then the run's progress and gates in the chat. */
export interface ChatRunReply {
  kind: 'run';
  address: ChatAddress;
  markdown: string;
  runId: string;
  replyTo?: string;
}

export type ChatReplyInput = ChatTextReply | ChatTurnReply | ChatRunReply;

/** One reply workflow per delivery: a redelivered update finds it started and starts nothing. */
export function chatReplyWorkflowId(source: string, deliveryId: string): string {
  return `chat-reply:${source}:${deliveryId}`;
}
