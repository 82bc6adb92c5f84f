import { expect } from 'chai';
import type { ChatMessenger } from '../../../../domain/chat/chat-messenger.js';
import { ThrottledEditor } from '../../../../services/chat/throttled-editor.js';

/** A platform that records the edits it receives, with the pacing under test. */
function recordingMessenger(pacing: { editIntervalMs: number; writeGapMs?: number }) {
  const edits: string[] = [];
  const messenger: ChatMessenger = {
    platform: 'github',
    ...pacing,
    split: (markdown) => [markdown],
    send: () => Promise.resolve('1'),
    edit: (_address, _id, markdown) => {
      edits.push(markdown);
      return Promise.resolve();
    },
  };
  return { messenger, edits };
}

const address = { platform: 'github' as const, chatId: 'acme/app#1' };

describe('ThrottledEditor', () => {
  it('skips a progress edit inside the edit interval, and makes the final one after the write gap', async () => {
    // An hour between progress edits: waiting it out would time the test out.
    const { messenger, edits } = recordingMessenger({ editIntervalMs: 3_600_000, writeGapMs: 0 });
    const editor = new ThrottledEditor(messenger, address, '1', 'working…', new AbortController().signal);
    await editor.show('half an answer');
    expect(edits).to.deep.equal([]);
    await editor.show('the answer', { final: true });
    expect(edits).to.deep.equal(['the answer']);
  });

  it('paces the final edit by the edit interval when the platform names no write gap', async () => {
    const { messenger, edits } = recordingMessenger({ editIntervalMs: 3_600_000 });
    const controller = new AbortController();
    const editor = new ThrottledEditor(messenger, address, '1', 'working…', controller.signal);
    const final = editor.show('the answer', { final: true });
    controller.abort(new Error('activity cancelled'));
    await final.then(
      () => expect.fail('the final edit did not wait'),
      (error: Error) => expect(error.message).to.equal('activity cancelled'),
    );
    expect(edits).to.deep.equal([]);
  });

  it('leaves an unchanged text alone', async () => {
    const { messenger, edits } = recordingMessenger({ editIntervalMs: 0 });
    const editor = new ThrottledEditor(messenger, address, '1', 'working…', new AbortController().signal);
    await editor.show('working…');
    await editor.show('working…', { final: true });
    expect(edits).to.deep.equal([]);
  });
});
