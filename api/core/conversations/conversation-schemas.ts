import {
  AnyObject,
  ComponentRef,
  DateTime,
  Nullable,
  NullableStringEnum,
  pageSchema,
  StrictObject,
  StringEnum,
  Type,
} from '../../http/index.js';
import type { JsonProjection } from '../../../db/json-projection.js';

export const Conversation = StrictObject({
  id: Type.String(),
  platform: Type.String({ description: 'web, or the chat or code-host platform it came from' }),
  platform_conversation_id: Type.String({
    description: 'the `{id}` of the conversation endpoints and its stream',
  }),
  codebase_id: Nullable(Type.String()),
  title: Nullable(Type.String()),
  isolation_environment_id: Nullable(
    Type.String({ description: 'the worktree its turns run in, once created' }),
  ),
  deleted: Type.Boolean(),
  deleted_at: Nullable(DateTime()),
  last_activity_at: DateTime(),
  created_at: DateTime(),
  updated_at: DateTime(),
});

/** One conversation as its own endpoint answers: with where to watch it in Temporal. */
export const ConversationDetail = StrictObject({
  ...Conversation.properties,
  temporalUrl: Nullable(
    Type.String({
      description:
        "the conversation's workflow execution in the Temporal Web UI (TEMPORAL_UI_URL); null when no UI is known",
    }),
  ),
});

/**
 * A conversation as the database writes it for the list: the same fields, in the same order, as
 * conversationWire (domain/conversations/wire.ts); test/integration/db/json-pages.test.ts holds
 * the two to each other.
 */
export const conversationJsonColumns: JsonProjection = {
  id: ['id'],
  platform: ['platform'],
  platform_conversation_id: ['platform_conversation_id'],
  codebase_id: ['codebase_id'],
  title: ['title'],
  isolation_environment_id: ['isolation_environment_id'],
  deleted: ['deleted_at', 'present'],
  deleted_at: ['deleted_at', 'time'],
  last_activity_at: ['last_activity_at', 'time'],
  created_at: ['created_at', 'time'],
  updated_at: ['updated_at', 'time'],
};

export const Message = StrictObject({
  id: Type.Integer({ description: 'increases with arrival' }),
  conversation_id: Type.String(),
  role: StringEnum(['user', 'assistant', 'tool', 'system', 'error']),
  content: Type.String(),
  metadata: AnyObject({ description: 'kind (text, tool_call, tool_result, session, error) and its details' }),
  turn_status: NullableStringEnum(['queued', 'running', 'completed', 'failed', 'cancelled'], {
    description: 'user messages only: the state of the turn answering it',
  }),
  reply_to_message_id: Nullable(Type.Integer({ description: 'output rows: the user message they answer' })),
  created_at: DateTime(),
});

export const MessagePage = pageSchema(ComponentRef('Message', Message));

export const MessageAccepted = StrictObject({
  message_id: Type.Integer(),
  conversation_id: Type.String(),
  status: StringEnum(['started', 'queued'], {
    description:
      'started: its turn begins now; queued: it waits for an earlier turn or a free assistant session',
  }),
  position: Type.Integer({
    description: 'queued only: waiting messages accepted before it, plus one (0 when started)',
  }),
});

export const conversationSchemas = {
  Conversation,
  ConversationDetail,
  Message,
  MessagePage,
  MessageAccepted,
};
