import type { JsonSchema } from '../../http/index.js';
import { pageSchema } from '../../http/index.js';

const nullableText = { type: 'string', nullable: true };

const conversation: JsonSchema = {
  type: 'object',
  required: ['id', 'platform', 'platform_conversation_id', 'codebase_id', 'title', 'deleted', 'created_at'],
  properties: {
    id: { type: 'string' },
    platform: { type: 'string', description: 'web, or the chat or code-host platform it came from' },
    platform_conversation_id: {
      type: 'string',
      description: 'the `{id}` of the conversation endpoints and its stream',
    },
    codebase_id: nullableText,
    title: nullableText,
    isolation_environment_id: { ...nullableText, description: 'the worktree its turns run in, once created' },
    deleted: { type: 'boolean' },
    deleted_at: { ...nullableText, format: 'date-time' },
    last_activity_at: { type: 'string', format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const message: JsonSchema = {
  type: 'object',
  required: ['id', 'conversation_id', 'role', 'content', 'created_at'],
  properties: {
    id: { type: 'integer', description: 'increases with arrival' },
    conversation_id: { type: 'string' },
    role: { type: 'string', enum: ['user', 'assistant', 'tool', 'system', 'error'] },
    content: { type: 'string' },
    metadata: {
      type: 'object',
      description: 'kind (text, tool_call, tool_result, session, error) and its details',
    },
    turn_status: {
      type: 'string',
      nullable: true,
      enum: ['queued', 'running', 'completed', 'failed', null],
      description: 'user messages only: the state of the turn answering it',
    },
    reply_to_message_id: {
      type: 'integer',
      nullable: true,
      description: 'output rows: the user message they answer',
    },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const messageAccepted: JsonSchema = {
  type: 'object',
  required: ['message_id', 'conversation_id', 'status', 'position'],
  properties: {
    message_id: { type: 'integer' },
    conversation_id: { type: 'string' },
    status: {
      type: 'string',
      enum: ['started', 'queued'],
      description:
        'started: its turn begins now; queued: it waits for an earlier turn or a free assistant session',
    },
    position: {
      type: 'integer',
      description: 'queued only: waiting messages accepted before it, plus one (0 when started)',
    },
  },
};

export const conversationSchemas = {
  Conversation: conversation,
  Message: message,
  MessagePage: pageSchema({ $ref: '#/components/schemas/Message' }),
  MessageAccepted: messageAccepted,
};
