// What the conversation page shows, folded from stored messages and live stream frames. Pure:
// test/unit/web/conversation-model.test.ts drives it. Every stored row is keyed by its id, so a
// message that arrives both in the loaded page and on the stream is shown once.
import type { Message } from '../api/types.js';
import type { StreamFrame } from '../api/stream-frame.js';

export interface ChatState {
  /** Stored rows by id. */
  messages: ReadonlyMap<number, Message>;
  /** Text of a running turn (by its user message id) that is not stored yet. */
  drafts: ReadonlyMap<number, string>;
  title?: string;
}

export const emptyChat = (): ChatState => ({ messages: new Map(), drafts: new Map() });

export function withMessages(state: ChatState, rows: readonly Message[]): ChatState {
  const messages = new Map(state.messages);
  for (const row of rows) messages.set(row.id, { ...messages.get(row.id), ...row });
  return { ...state, messages };
}

type Status = Message['turn_status'];
const TURN_ENDS: Record<string, Status> = {
  turn_completed: 'completed',
  turn_failed: 'failed',
  turn_cancelled: 'cancelled',
  turn_abandoned: 'failed',
};

const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

function setTurn(state: ChatState, messageId: number | undefined, status: Status): ChatState {
  const row = messageId === undefined ? undefined : state.messages.get(messageId);
  if (!row || messageId === undefined) return state;
  const messages = new Map(state.messages);
  messages.set(messageId, { ...row, turn_status: status });
  return { ...state, messages };
}

function withDraft(state: ChatState, turn: number | undefined, text: string | undefined): ChatState {
  if (turn === undefined) return state;
  const drafts = new Map(state.drafts);
  if (text === undefined) drafts.delete(turn);
  else drafts.set(turn, text);
  return { ...state, drafts };
}

/** A row the stream announced with its stored id, as the messages endpoint would list it. */
function stored(
  frame: StreamFrame,
  role: Message['role'],
  content: string,
  metadata: object,
): Message | undefined {
  const id = num(frame.data.storedMessageId);
  if (id === undefined) return undefined;
  return {
    id,
    conversation_id: '',
    role,
    content,
    metadata: metadata as Message['metadata'],
    turn_status: null,
    reply_to_message_id: num(frame.data.messageId) ?? null,
    created_at: str(frame.data.created_at),
  };
}

const addRow = (state: ChatState, row: Message | undefined) =>
  row && !state.messages.has(row.id) ? withMessages(state, [row]) : state;

export function applyFrame(state: ChatState, frame: StreamFrame): ChatState {
  const { data } = frame;
  const turn = num(data.messageId);
  switch (data.type) {
    case 'message':
      return addRow(state, data.message as Message);
    case 'turn_started':
      return withDraft(setTurn(state, turn, 'running'), turn, undefined);
    case 'turn_waiting':
      // The try is over and its output goes; the next try starts once the limit resets.
      return withDraft(
        state,
        turn,
        `⏳ The assistant's usage limit is reached: the answer goes on by itself at ${new Date(str(data.until)).toLocaleString()}. Cancel stops it.`,
      );
    case 'text':
      return withDraft(
        state,
        turn,
        (turn === undefined ? '' : (state.drafts.get(turn) ?? '')) + str(data.text),
      );
    case 'text_done':
      return withDraft(
        addRow(state, stored(frame, 'assistant', str(data.text), { kind: 'text' })),
        turn,
        undefined,
      );
    case 'tool_call':
      return addRow(
        state,
        stored(frame, 'tool', str(data.name), {
          kind: 'tool_call',
          name: data.name,
          input: data.input,
          toolCallId: data.toolCallId,
        }),
      );
    case 'tool_result':
      return addRow(
        state,
        stored(frame, 'tool', str(data.output), {
          kind: 'tool_result',
          toolCallId: data.toolCallId,
          isError: data.isError,
        }),
      );
    case 'error':
      return addRow(state, stored(frame, 'error', str(data.message), { kind: 'error' }));
    case 'title':
      return typeof data.title === 'string' ? { ...state, title: data.title } : state;
    default: {
      const end = TURN_ENDS[data.type];
      return end ? withDraft(setTurn(state, turn, end), turn, undefined) : state;
    }
  }
}

export interface ToolCard {
  kind: 'tool';
  id: number;
  name: string;
  input: string;
  result?: { output: string; isError: boolean };
}
export type ChatItem =
  { kind: 'message'; message: Message } | ToolCard | { kind: 'draft'; turn: number; text: string };

/** The rows to draw, oldest first: tool calls paired with their results, session rows left out. */
export function chatItems(state: ChatState): ChatItem[] {
  const rows = [...state.messages.values()].sort((a, b) => a.id - b.id);
  const meta = (row: Message) => row.metadata as Record<string, unknown>;
  const results = new Map<string, Message>();
  for (const row of rows) if (meta(row).kind === 'tool_result') results.set(str(meta(row).toolCallId), row);
  const items: ChatItem[] = [];
  for (const row of rows) {
    const kind = meta(row).kind;
    if (kind === 'session' || kind === 'tool_result') continue;
    if (kind === 'tool_call') {
      const result = results.get(str(meta(row).toolCallId));
      items.push({
        kind: 'tool',
        id: row.id,
        name: str(meta(row).name) || row.content,
        input: str(meta(row).input),
        result: result && { output: result.content, isError: meta(result).isError === true },
      });
    } else items.push({ kind: 'message', message: row });
  }
  for (const [turn, text] of state.drafts) if (text) items.push({ kind: 'draft', turn, text });
  return items;
}

/** The user message whose turn runs now, if any (what the cancel button stops). */
export function runningTurn(state: ChatState): Message | undefined {
  return [...state.messages.values()].find((row) => row.role === 'user' && row.turn_status === 'running');
}
