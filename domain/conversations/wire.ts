// How conversations and messages look on the wire (snake_case, as the spec's fields are).

export interface MessageRecord {
  id: number;
  conversationId: string;
  role: string;
  content: string;
  metadata: Record<string, unknown>;
  turnStatus: string | null;
  replyToMessageId: number | null;
  createdAt: string;
}

export interface ConversationRecord {
  id: string;
  platform: string;
  platformConversationId: string;
  codebaseId: string | null;
  title: string | null;
  isolationEnvironmentId: string | null;
  lastActivityAt: string;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function messageWire(message: MessageRecord) {
  return {
    id: message.id,
    conversation_id: message.conversationId,
    role: message.role,
    content: message.content,
    metadata: message.metadata,
    turn_status: message.turnStatus,
    reply_to_message_id: message.replyToMessageId,
    created_at: message.createdAt,
  };
}

export function conversationWire(conversation: ConversationRecord) {
  return {
    id: conversation.id,
    platform: conversation.platform,
    platform_conversation_id: conversation.platformConversationId,
    codebase_id: conversation.codebaseId,
    title: conversation.title,
    isolation_environment_id: conversation.isolationEnvironmentId,
    deleted: conversation.deletedAt !== null,
    deleted_at: conversation.deletedAt,
    last_activity_at: conversation.lastActivityAt,
    created_at: conversation.createdAt,
    updated_at: conversation.updatedAt,
  };
}
