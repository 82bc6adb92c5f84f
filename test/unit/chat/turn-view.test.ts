import { expect } from 'chai';
import {
  applyTurnEvent,
  batchStartText,
  emptyTurnView,
  finalText,
  streamingText,
  toolLine,
  type TurnEvent,
} from '../../../domain/chat/turn-view.js';

function fold(events: TurnEvent[]) {
  return events.reduce(applyTurnEvent, emptyTurnView());
}

const text = (value: string): TurnEvent => ({ type: 'text', payload: { text: value } });
const tool = (name: string, input: unknown): TurnEvent => ({ type: 'tool_call', payload: { name, input } });
const result: TurnEvent = { type: 'tool_result', payload: {} };

describe('chat/turn view (what a chat shows of a turn)', () => {
  it('says while a turn waits out the usage limit when it goes on, and forgets it once it does', () => {
    const waiting = fold([
      text('partial'),
      { type: 'turn_waiting', payload: { reason: 'usage_limit', until: '2026-11-27T14:00:00.000Z' } },
    ]);
    const line = '⏳ usage limit reached: goes on by itself at 2026-11-27 14:00 UTC (/cancel stops it)';
    expect(streamingText(waiting, 1900)).to.equal(`partial\n\n_${line}_`);
    expect(batchStartText('Cairn', waiting)).to.equal(`Cairn is working on it… _${line}_`);
    const resumed = applyTurnEvent(waiting, { type: 'turn_started', payload: {} });
    expect(resumed.waitingUntil).to.equal(undefined);
    const cancelled = applyTurnEvent(waiting, { type: 'turn_cancelled', payload: {} });
    expect(cancelled.waitingUntil).to.equal(undefined);
    expect(finalText(cancelled)).to.equal('partial\n\n⏹ Cancelled.');
  });

  it('joins text deltas, and starts a new paragraph after a tool call', () => {
    const view = fold([
      text('Let me '),
      text('look.'),
      tool('Bash', '{"command":"ls -la"}'),
      result,
      text('Done.'),
    ]);
    expect(view.text).to.equal('Let me look.\n\nDone.');
    expect(view.toolCalls).to.equal(1);
    expect(view.activeTool).to.equal(undefined);
    expect(finalText({ ...view, end: 'completed' })).to.equal('Let me look.\n\nDone.');
  });

  it('starts over when the turn is retried', () => {
    const view = fold([text('half an answ'), { type: 'turn_started', payload: {} }, text('A whole answer.')]);
    expect(view.text).to.equal('A whole answer.');
  });

  it('names the running tool by the argument people recognise', () => {
    expect(toolLine('Bash', '{"command":"npm   test\\n -- --grep x"}')).to.equal(
      'Bash: npm test -- --grep x',
    );
    expect(toolLine('Read', { file_path: 'src/app.ts' })).to.equal('Read: src/app.ts');
    expect(toolLine('Think', 'not json')).to.equal('Think: not json');
    expect(toolLine('Custom', '{}')).to.equal('Custom');
    expect(toolLine('Bash', JSON.stringify({ command: 'x'.repeat(200) }))).to.have.length.below(90);
  });

  it('streams the end of a long text with the tool line under it', () => {
    const view = fold([text('a'.repeat(5_000)), tool('Bash', '{"command":"make"}')]);
    const shown = streamingText(view, 1_000);
    expect(shown.length).to.be.at.most(1_000);
    expect(shown.startsWith('…')).to.equal(true);
    expect(shown.endsWith('_⚙ Bash: make (1 tool call)_')).to.equal(true);
    expect(streamingText(emptyTurnView(), 1_000)).to.equal('…');
  });

  it('says queued, working and the tool count in batch mode', () => {
    expect(batchStartText('Cairn', emptyTurnView(), 3)).to.contain('queued, position 3');
    expect(batchStartText('Cairn', emptyTurnView())).to.equal('Cairn is working on it…');
    const working = fold([tool('Read', { file_path: 'a.ts' }), result, tool('Bash', { command: 'ls' })]);
    expect(batchStartText('Cairn', working)).to.equal('Cairn is working on it… _⚙ Bash: ls (2 tool calls)_');
  });

  it('ends with the reason of a failure, or says it was cancelled', () => {
    const failed = fold([
      text('Trying.'),
      { type: 'turn_failed', payload: { code: 'x', error: 'quota hit' } },
    ]);
    expect(failed.end).to.equal('failed');
    expect(finalText(failed)).to.equal('Trying.\n\n⚠️ Failed: quota hit');
    const cancelled = fold([{ type: 'turn_cancelled', payload: {} }]);
    expect(finalText(cancelled)).to.equal('⏹ Cancelled.');
    expect(finalText(fold([{ type: 'turn_completed', payload: {} }]))).to.equal('(no answer)');
  });
});
