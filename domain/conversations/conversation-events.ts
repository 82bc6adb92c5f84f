// The journal events of a conversation stream (SSE `type` values). Pure data: used by the API,
// the turn activities and the event table of docs/api.md.

export const CONVERSATION_EVENT_TYPES = [
  'message',
  'turn_started',
  'turn_waiting',
  'session',
  'text',
  'text_done',
  'tool_call',
  'tool_result',
  'error',
  'turn_completed',
  'turn_failed',
  'title',
  'conversation_deleted',
] as const;

export type ConversationEventType = (typeof CONVERSATION_EVENT_TYPES)[number];

/** Longest tool input or output kept in a stored message or an event; the rest is cut. */
export const MAX_TOOL_TEXT = 64 * 1024;

export function clipToolText(text: string): string {
  return text.length <= MAX_TOOL_TEXT
    ? text
    : `${text.slice(0, MAX_TOOL_TEXT)}\n… [${text.length - MAX_TOOL_TEXT} more characters cut]`;
}

/** A tool's input as text for a message or an event: JSON for values, as is for text. */
export function toolText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}
