import { expect } from 'chai';
import { markdownBlocks } from '../../../web/src/chat/markdown-blocks.js';

describe('web markdownBlocks (an answer being written, cut into its blocks)', () => {
  it('cuts after blank lines, and the blocks joined are the text', () => {
    const text = '# Title\n\nA paragraph\non two lines.\n\n\nAnother one.';
    const blocks = markdownBlocks(text);
    expect(blocks).to.deep.equal(['# Title\n\n', 'A paragraph\non two lines.\n\n\n', 'Another one.']);
    expect(blocks.join('')).to.equal(text);
  });

  it('keeps a fenced code block whole, blank lines and all, even while it is still open', () => {
    const text = 'Look:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nDone.';
    expect(markdownBlocks(text)).to.deep.equal([
      'Look:\n\n',
      '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n',
      'Done.',
    ]);
    expect(markdownBlocks('Look:\n\n~~~\na\n\nb')).to.deep.equal(['Look:\n\n', '~~~\na\n\nb']);
    // A shorter or other fence inside does not close it.
    expect(markdownBlocks('````\n```\n\nx\n````\n\ny')).to.deep.equal(['````\n```\n\nx\n````\n\n', 'y']);
  });

  it('does not cut before a list item or an indented line (they may belong to the block above)', () => {
    const text = 'Lists:\n\n- one\n\n- two\n\n  more of two\n\n1. first\n\n2. second\n\nAfter.';
    expect(markdownBlocks(text)).to.deep.equal([
      'Lists:\n\n- one\n\n- two\n\n  more of two\n\n1. first\n\n2. second\n\n',
      'After.',
    ]);
  });

  it('leaves a text without blank lines, or an empty one, as one block', () => {
    expect(markdownBlocks('one long paragraph')).to.deep.equal(['one long paragraph']);
    expect(markdownBlocks('')).to.deep.equal(['']);
    expect(markdownBlocks('\n\nstarts blank')).to.deep.equal(['\n\nstarts blank']);
  });
});
