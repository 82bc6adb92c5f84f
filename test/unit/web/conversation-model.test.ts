import { expect } from 'chai';
import {
  applyFrame,
  chatItems,
  emptyChat,
  runningTurn,
  withMessages,
  type ChatState,
} from '../../../web/src/chat/conversation-model.js';
import type { StreamFrame } from '../../../web/src/api/stream-frame.js';
import type { Message } from '../../../web/src/api/types.js';

const user = (id: number, status: Message['turn_status'] = 'queued'): Message => ({
  id,
  conversation_id: 'c',
  role: 'user',
  content: `question ${id}`,
  metadata: {},
  turn_status: status,
  reply_to_message_id: null,
  created_at: '2026-01-01T00:00:00.000Z',
});

let nextId = 1;
const frame = (type: string, fields: Record<string, unknown> = {}): StreamFrame => ({
  id: nextId++,
  data: { type, messageId: 1, created_at: '2026-01-01T00:00:00.000Z', ...fields },
});
const fold = (state: ChatState, frames: StreamFrame[]) => frames.reduce(applyFrame, state);

describe('the conversation page model (web/src/chat/conversation-model.ts)', () => {
  it('shows text as it streams, then the stored answer in its place', () => {
    let state = fold(emptyChat(), [frame('message', { message: user(1) }), frame('turn_started')]);
    expect(runningTurn(state)?.id).to.equal(1);
    state = fold(state, [frame('text', { text: 'Hel' }), frame('text', { text: 'lo' })]);
    expect(chatItems(state).at(-1)).to.deep.equal({ kind: 'draft', turn: 1, text: 'Hello' });
    state = fold(state, [frame('text_done', { storedMessageId: 2, text: 'Hello' }), frame('turn_completed')]);
    const items = chatItems(state);
    expect(items.map((item) => item.kind)).to.deep.equal(['message', 'message']);
    expect(items[1]).to.have.nested.property('message.content', 'Hello');
    expect(runningTurn(state)).to.equal(undefined);
    expect(state.messages.get(1)?.turn_status).to.equal('completed');
  });

  it('keeps a row once when it comes both from the loaded page and from the stream', () => {
    const stored: Message = {
      ...user(2),
      role: 'assistant',
      content: 'Hello',
      metadata: { kind: 'text' } as unknown as Message['metadata'],
      turn_status: null,
    };
    let state = withMessages(emptyChat(), [user(1, 'completed'), stored]);
    state = fold(state, [
      frame('message', { message: user(1) }),
      frame('text_done', { storedMessageId: 2, text: 'Hello' }),
    ]);
    expect(chatItems(state)).to.have.length(2);
    // The loaded row keeps the newer status the page read.
    expect(state.messages.get(1)?.turn_status).to.equal('completed');
  });

  it('pairs a tool call with its result in one card, and leaves session rows out', () => {
    const state = fold(withMessages(emptyChat(), [user(1, 'running')]), [
      frame('session', { storedMessageId: 2, providerSessionId: 's' }),
      frame('tool_call', { storedMessageId: 3, toolCallId: 't1', name: 'Bash', input: '{"command":"ls"}' }),
      frame('tool_result', { storedMessageId: 4, toolCallId: 't1', output: 'README.md', isError: false }),
      frame('error', { storedMessageId: 5, message: 'rate limited' }),
    ]);
    const items = chatItems(state);
    expect(items[1]).to.deep.equal({
      kind: 'tool',
      id: 3,
      name: 'Bash',
      input: '{"command":"ls"}',
      result: { output: 'README.md', isError: false },
    });
    expect(items[2]).to.have.nested.property('message.role', 'error');
    expect(items).to.have.length(3);
  });

  it('starts the text over when a turn is retried, and ends it on a cancel', () => {
    let state = fold(withMessages(emptyChat(), [user(1)]), [
      frame('turn_started'),
      frame('text', { text: 'half' }),
    ]);
    state = fold(state, [frame('turn_started'), frame('text', { text: 'whole' })]);
    expect(chatItems(state).at(-1)).to.deep.include({ text: 'whole' });
    state = fold(state, [frame('turn_cancelled')]);
    expect(state.messages.get(1)?.turn_status).to.equal('cancelled');
    expect(chatItems(state).some((item) => item.kind === 'draft')).to.equal(false);
  });

  it('says while a turn waits out the usage limit when it goes on, then shows the next try', () => {
    let state = fold(withMessages(emptyChat(), [user(1)]), [
      frame('turn_started'),
      frame('turn_waiting', { reason: 'usage_limit', until: '2026-11-27T14:00:00.000Z' }),
    ]);
    const waiting = chatItems(state).at(-1) as { kind: string; text: string };
    expect(waiting.kind).to.equal('draft');
    expect(waiting.text).to.match(/usage limit is reached: the answer goes on by itself at .*2026/);
    expect(runningTurn(state)).to.not.equal(undefined);
    state = fold(state, [frame('turn_started'), frame('text', { text: 'answered' })]);
    expect(chatItems(state).at(-1)).to.deep.include({ text: 'answered' });
  });
});
