import { expect } from 'chai';
import { PLATFORM_TEXT_LIMITS, splitMessage, splitRendered } from '../../../domain/chat/split-message.js';
import { markdownToSlackMrkdwn } from '../../../domain/chat/slack-mrkdwn.js';
import { randomSource } from '../../support/random-source.js';

const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/**
 * Each non-whitespace character of `markdown` outside fence lines, tagged with where it is:
 * `prose`, or `code:<language>` inside a fenced block (read independently of the code under test).
 * Fence lines are returned apart.
 */
function readMarkdown(markdown: string): { chars: string[]; fences: string[]; endsInCode: boolean } {
  const chars: string[] = [];
  const fences: string[] = [];
  let open: { marker: string; language: string } | null = null;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line);
    const marker = fence?.[1] ?? '';
    const rest = fence?.[2] ?? '';
    const closes: boolean =
      open !== null && marker[0] === open.marker[0] && marker.length >= open.marker.length && !rest.trim();
    const opens: boolean = !open && fence !== null && !(marker[0] === '`' && rest.includes('`'));
    if (closes || opens) {
      fences.push(line.trim());
      open = opens ? { marker, language: rest.trim() } : null;
      continue;
    }
    const tag = open ? `code:${open.language}` : 'prose';
    for (const char of line.replace(/\s/g, '')) chars.push(`${tag} ${char}`);
  }
  return { chars, fences, endsInCode: open !== null };
}

function isSubsequence(small: readonly string[], large: readonly string[]): boolean {
  let i = 0;
  for (const item of large) if (item === small[i]) i++;
  return i === small.length;
}

/** Every rule splitMessage promises, checked on one input. */
function expectValidSplit(markdown: string, limit: number): string[] {
  const parts = splitMessage(markdown, limit);
  const context = () => JSON.stringify({ limit, markdown, parts });
  for (const [i, part] of parts.entries()) {
    expect(part.length, `part ${i} too long: ${context()}`).to.be.at.most(limit);
    expect(part.trim(), `part ${i} empty: ${context()}`).to.not.equal('');
    expect(part, `part ${i} not trimmed: ${context()}`).to.equal(part.trimEnd());
    // Every part closes the blocks it opens, except an input that itself ends inside one.
    if (i < parts.length - 1)
      expect(readMarkdown(part).endsInCode, `part ${i} open: ${context()}`).to.equal(false);
  }
  const input = readMarkdown(markdown);
  const read = parts.map(readMarkdown);
  // No non-whitespace character is lost, and code stays code in the same language.
  expect(
    read.flatMap((r) => r.chars),
    context(),
  ).to.deep.equal(input.chars);
  expect(
    isSubsequence(
      input.fences,
      read.flatMap((r) => r.fences),
    ),
    context(),
  ).to.equal(true);
  return parts;
}

const sentence = (n: number) => `Sentence number ${n} explains one more detail of the change.`;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');
const codeLines = (count: number, width = 40) =>
  Array.from({ length: count }, (_, i) => `  const value${i} = compute(${i}); // ${'x'.repeat(width - 30)}`);

describe('chat/splitMessage', () => {
  it('states each platform limit', () => {
    expect(PLATFORM_TEXT_LIMITS).to.deep.equal({ telegram: 4096, discord: 2000, slack: 3000 });
  });

  it('keeps a short answer whole, trimmed, and drops an empty one', () => {
    expect(splitMessage('Hello **there**.\n\n', 4096)).to.deep.equal(['Hello **there**.']);
    expect(splitMessage('  \n\n \t\n', 4096)).to.deep.equal([]);
    expect(splitMessage('', 10)).to.deep.equal([]);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => splitMessage('x', 0)).to.throw(RangeError);
    expect(() => splitMessage('x', 2.5)).to.throw(RangeError);
  });

  it('breaks at a blank line, then a line end, then a space, then anywhere', () => {
    const first = paragraph(1, 2);
    const second = paragraph(3, 2);
    expect(expectValidSplit(`${first}\nshort line\n\n${second}`, first.length + 20)).to.deep.equal([
      `${first}\nshort line`,
      second,
    ]);
    expect(expectValidSplit(`${first}\n${second}`, first.length + 20)).to.deep.equal([first, second]);
    expect(expectValidSplit('alpha beta gamma delta', 12)).to.deep.equal(['alpha beta', 'gamma delta']);
    expect(expectValidSplit('abcdefghijklmnopqrstuvwxyz', 10)).to.deep.equal([
      'abcdefghij',
      'klmnopqrst',
      'uvwxyz',
    ]);
  });

  it('does not break early to reach a blank line when a line end fills the part better', () => {
    const text = `Short intro.\n\n${sentence(1)}\n${sentence(2)}\n${sentence(3)}`;
    const parts = expectValidSplit(text, 140);
    expect(parts[0]).to.equal(`Short intro.\n\n${sentence(1)}\n${sentence(2)}`);
  });

  it('cuts a 6,000-character answer inside its code block, closing the block and reopening it', () => {
    const functions = Array.from({ length: 12 }, (_, i) =>
      [`export function step${i}(input: Input): Output {`, ...codeLines(4), '}'].join('\n'),
    );
    const code = ['```ts', functions.join('\n\n'), '```'].join('\n');
    const answer = [paragraph(1, 30), code, paragraph(100, 26)].join('\n\n');
    expect(answer.length).to.be.within(5_500, 6_500);
    const blockStart = answer.indexOf('```ts');
    const blockEnd = answer.lastIndexOf('```') + 3;
    expect(blockStart).to.be.below(PLATFORM_TEXT_LIMITS.telegram);
    expect(blockEnd).to.be.above(PLATFORM_TEXT_LIMITS.telegram);

    const parts = expectValidSplit(answer, PLATFORM_TEXT_LIMITS.telegram);
    expect(parts).to.have.length(2);
    // The break is at a blank line between two functions: the first part closes the block there...
    expect(parts[0]).to.match(/\n}\n```$/);
    expect(parts[0]!.length).to.be.above(PLATFORM_TEXT_LIMITS.telegram - 300);
    // ...and the second reopens it with the same fence and language.
    expect(parts[1]).to.match(/^```ts\nexport function step\d+/);
    expect(parts[1]!.endsWith(paragraph(100, 26))).to.equal(true);
  });

  it('splits a code block longer than the limit into closed blocks, fence lines counted', () => {
    const lines = codeLines(60);
    const markdown = ['Here is the file:', '', '~~~python', ...lines, '~~~', '', 'That is all.'].join('\n');
    const limit = 500;
    const parts = expectValidSplit(markdown, limit);
    expect(parts.length).to.be.above(4);
    for (const part of parts.slice(1, -1)) {
      expect(part.startsWith('~~~python\n')).to.equal(true);
      expect(part.endsWith('\n~~~')).to.equal(true);
    }
    // Reassembled without the added fences, the code is exactly the original lines.
    const reassembled = parts
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('  const'));
    expect(reassembled).to.deep.equal(lines);
    // Tight: the parts are filled up to the limit (fences included), not left half empty.
    expect(parts[1]!.length).to.be.above(limit - lines[0]!.length - 1);
  });

  it('cuts a single line longer than the limit hard, inside code too', () => {
    const long = 'x'.repeat(250);
    expect(expectValidSplit(`before\n${long}\nafter`, 100)).to.deep.equal([
      'before',
      'x'.repeat(100),
      'x'.repeat(100),
      `${'x'.repeat(50)}\nafter`,
    ]);
    const parts = expectValidSplit(['```', long, '```'].join('\n'), 100);
    expect(parts.map((part) => part.length)).to.deep.equal([100, 100, 74]);
    expect(parts[0]).to.equal(`\`\`\`\n${'x'.repeat(92)}\n\`\`\``);
  });

  it('keeps an input that ends inside an unclosed block open only in its last part', () => {
    const markdown = ['```sh', ...codeLines(20)].join('\n');
    const parts = expectValidSplit(markdown, 200);
    expect(parts.length).to.be.above(2);
    expect(parts.at(-1)!.endsWith('```')).to.equal(false);
  });

  it('never starts a part mid-line with ``` (it would open a block)', () => {
    const markdown = `${'word '.repeat(15)}\`\`\`not a fence and more words here`;
    for (const limit of [70, 75, 80, 85]) {
      const parts = expectValidSplit(markdown, limit);
      for (const part of parts) expect(part.startsWith('```')).to.equal(false);
    }
  });

  it('does not cut an emoji in half', () => {
    expect(expectValidSplit('😀😀😀', 3)).to.deep.equal(['😀', '😀', '😀']);
  });

  it('holds its promises on random markdown (seeded)', () => {
    const random = randomSource(20_240_611);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const word = () => {
      if (random() < 0.03) return 'y'.repeat(40 + Math.floor(random() * 200));
      if (random() < 0.03) return '🙂';
      return 'abcdefghijklmnop'.slice(0, 1 + Math.floor(random() * 12));
    };
    const line = (words: number) => {
      const parts = Array.from({ length: 1 + Math.floor(random() * words) }, word);
      if (random() < 0.1) parts.splice(1, 0, pick(['```', '~~~', '```ts']));
      return (random() < 0.2 ? '  ' : '') + parts.join(random() < 0.1 ? '  ' : ' ');
    };
    const codeBlock = () => {
      const opening = pick(['```', '```ts', '```python', '~~~', '~~~sh', '````md']);
      const body = Array.from({ length: Math.floor(random() * 15) }, () => (random() < 0.15 ? '' : line(8)));
      if (opening === '````md' && random() < 0.5) body.push('```', 'inner', '```');
      const closing = random() < 0.9 ? [opening.replace(/[a-z]+$/, '')] : [];
      return [opening, ...body, ...closing].join('\n');
    };
    for (let round = 0; round < 400; round++) {
      const blocks = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
        random() < 0.3
          ? codeBlock()
          : Array.from({ length: 1 + Math.floor(random() * 4) }, () => line(20)).join('\n'),
      );
      const markdown = blocks.join(pick(['\n', '\n\n', '\n\n\n', '\n \n']));
      expectValidSplit(markdown, 40 + Math.floor(random() * 400));
    }
  });
});

describe('chat/splitRendered', () => {
  it('splits again what grows past the limit once rendered, keeping every character and code block', () => {
    const code = Array.from({ length: 40 }, (_, i) => `if (a${i} < b && c > ${i}) x &= y;`).join('\n');
    const markdown = `${'Tom & Jerry <3 '.repeat(120)}\n\n\`\`\`c\n${code}\n\`\`\`\n\n${'a < b & c > d '.repeat(150)}`;
    const plain = splitMessage(markdown, 1_000);
    expect(
      plain.some((part) => markdownToSlackMrkdwn(part).length > 1_000),
      'the plain split overflows',
    ).to.equal(true);
    const parts = splitRendered(markdown, 1_000, markdownToSlackMrkdwn);
    for (const part of parts) expect(markdownToSlackMrkdwn(part).length).to.be.at.most(1_000);
    const letters = (text: string) => text.replace(/```c?|\s/g, '');
    expect(parts.map(letters).join('')).to.equal(letters(markdown));
    for (const part of parts) expect(part.split('```').length % 2, 'fences in pairs').to.equal(1);
  });

  it('leaves parts alone that fit once rendered', () => {
    expect(splitRendered('plain words', 100, (part) => part)).to.deep.equal(['plain words']);
  });
});
