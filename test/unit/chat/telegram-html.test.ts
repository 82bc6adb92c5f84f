import { expect } from 'chai';
import {
  escapeTelegramHtml,
  markdownToTelegramHtml,
  telegramParts,
} from '../../../domain/chat/telegram-html.js';
import { randomSource } from '../../support/random-source.js';

const TELEGRAM_TAGS = new Set(['b', 'i', 'u', 's', 'a', 'code', 'pre', 'blockquote', 'tg-spoiler']);
const TAG = /^<(\/?)([a-z-]+)((?: [a-z]+="[^"<>]*")*)>/;
const ENTITY = /^&(?:lt|gt|amp|quot);/;

/**
 * The problems Telegram would refuse the message for, or [] when it is well-formed: only its
 * tags, each closed in order, nothing inside code, no link in a link or quote in a quote, and
 * `<`, `>`, `&` only as tags and entities.
 */
function telegramHtmlProblems(html: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  for (let i = 0; i < html.length;) {
    const rest = html.slice(i);
    if (rest.startsWith('<')) {
      const tag = TAG.exec(rest);
      if (!tag) return [...problems, `raw < at ${i}`];
      const [whole, closing, name = '', attributes] = tag;
      if (!TELEGRAM_TAGS.has(name)) problems.push(`unknown tag ${name}`);
      if (closing) {
        if (open.pop() !== name) problems.push(`</${name}> closes nothing open at ${i}`);
      } else {
        const parent = open.at(-1);
        if (parent === 'code' || (parent === 'pre' && name !== 'code'))
          problems.push(`<${name}> inside <${parent}>`);
        if (name === 'code' && open.includes('a')) problems.push('<code> inside <a>');
        if (open.includes(name) && (name === 'a' || name === 'blockquote')) problems.push(`nested <${name}>`);
        if (name === 'a' && !/^ href="[^"]+"$/.test(attributes!)) problems.push(`<a> without one href`);
        if (name === 'code' && attributes && !/^ class="language-[^"]+"$/.test(attributes))
          problems.push('bad code class');
        if (name !== 'a' && name !== 'code' && attributes) problems.push(`<${name}> with attributes`);
        open.push(name);
      }
      i += whole.length;
    } else if (rest.startsWith('&')) {
      const entity = ENTITY.exec(rest);
      if (!entity) return [...problems, `raw & at ${i}`];
      i += entity[0].length;
    } else if (rest.startsWith('>')) {
      return [...problems, `raw > at ${i}`];
    } else {
      i++;
    }
  }
  if (open.length > 0) problems.push(`left open: ${open.join(', ')}`);
  return problems;
}

/** What Telegram shows: tags dropped, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

function expectWellFormed(html: string, source: string): void {
  expect(telegramHtmlProblems(html), JSON.stringify({ source, html })).to.deep.equal([]);
}

const convert = markdownToTelegramHtml;

describe('chat/escapeTelegramHtml', () => {
  it('escapes the three characters Telegram requires escaped', () => {
    expect(escapeTelegramHtml('<script>alert("x")</script> & co')).to.equal(
      '&lt;script&gt;alert("x")&lt;/script&gt; &amp; co',
    );
    expect(escapeTelegramHtml('&lt; stays text')).to.equal('&amp;lt; stays text');
  });
});

describe('chat/markdownToTelegramHtml', () => {
  it('escapes text outside tags', () => {
    expect(convert('a < b && c > d')).to.equal('a &lt; b &amp;&amp; c &gt; d');
    expect(convert('<script>alert("hi")</script>')).to.equal('&lt;script&gt;alert("hi")&lt;/script&gt;');
    expect(convert('<b>not a tag</b>')).to.equal('&lt;b&gt;not a tag&lt;/b&gt;');
  });

  it('converts bold, italic, strike and inline code', () => {
    expect(convert('**bold** and __bold__, *it* and _it_, ~~gone~~, `x < y`')).to.equal(
      '<b>bold</b> and <b>bold</b>, <i>it</i> and <i>it</i>, <s>gone</s>, <code>x &lt; y</code>',
    );
  });

  it('nests bold and italic', () => {
    expect(convert('*italic with **bold** inside*')).to.equal('<i>italic with <b>bold</b> inside</i>');
    expect(convert('**bold with *italic* inside**')).to.equal('<b>bold with <i>italic</i> inside</b>');
    expect(convert('**bold with _italic_ inside**')).to.equal('<b>bold with <i>italic</i> inside</b>');
    expect(convert('***both***')).to.equal('<b><i>both</i></b>');
  });

  it('interprets nothing inside inline code', () => {
    expect(convert('run `rm -rf **/*.tmp` then `a_b_c` and ``x ` y``')).to.equal(
      'run <code>rm -rf **/*.tmp</code> then <code>a_b_c</code> and <code>x ` y</code>',
    );
  });

  it('leaves unbalanced markers as text', () => {
    expect(convert('a lone * star, a ** double and *open')).to.equal('a lone * star, a ** double and *open');
    expect(convert('**never closed')).to.equal('**never closed');
    expect(convert('`unclosed code and **bold**')).to.equal('`unclosed code and <b>bold</b>');
    expect(convert('a * b * c and 5 * 3')).to.equal('a * b * c and 5 * 3');
    expect(convert('\\*escaped\\* and \\_too\\_')).to.equal('*escaped* and _too_');
  });

  it('leaves underscores inside words alone', () => {
    expect(convert('call get_user_by_id on snake_case_names, MAX_RETRY_COUNT stays')).to.equal(
      'call get_user_by_id on snake_case_names, MAX_RETRY_COUNT stays',
    );
    expect(convert('the _real_ one_of_them')).to.equal('the <i>real</i> one_of_them');
  });

  it('keeps URLs with _ and * whole', () => {
    expect(convert('see https://example.com/a_b_c/*d*?q=x_y, or **https://example.com/x_y**.')).to.equal(
      'see https://example.com/a_b_c/*d*?q=x_y, or <b>https://example.com/x_y</b>.',
    );
    expect(convert('[docs](https://example.com/snake_case/*glob*)')).to.equal(
      '<a href="https://example.com/snake_case/*glob*">docs</a>',
    );
  });

  it('converts links, escaping the URL as an attribute', () => {
    expect(convert('[the docs](https://example.com/a?x=1&y="2")')).to.equal(
      '<a href="https://example.com/a?x=1&amp;y=&quot;2&quot;">the docs</a>',
    );
    expect(convert('[**bold** link](http://x.io "title") and <https://x.io/a_b>')).to.equal(
      '<a href="http://x.io"><b>bold</b> link</a> and <a href="https://x.io/a_b">https://x.io/a_b</a>',
    );
    expect(convert('[wiki](https://en.wikipedia.org/wiki/Foo_(bar)).')).to.equal(
      '<a href="https://en.wikipedia.org/wiki/Foo_(bar)">wiki</a>.',
    );
    expect(convert('[the `run` command](https://x.io/run)')).to.equal(
      '<a href="https://x.io/run">the run command</a>',
    );
    expect(convert('[mail](mailto:a@b.example) [user](tg://user?id=1)')).to.equal(
      '<a href="mailto:a@b.example">mail</a> <a href="tg://user?id=1">user</a>',
    );
  });

  it('refuses links to anything but http, https, mailto and tg', () => {
    expect(convert('[click](javascript:alert(1))')).to.equal('[click](javascript:alert(1))');
    expect(convert('[x](JavaScript:alert("<b>"))')).to.equal('[x](JavaScript:alert("&lt;b&gt;"))');
    expect(convert('[f](file:///etc/passwd) [d](data:text/html,<script>)')).to.equal(
      '[f](file:///etc/passwd) [d](data:text/html,&lt;script&gt;)',
    );
    expect(convert('<javascript:alert(1)>')).to.equal('&lt;javascript:alert(1)&gt;');
  });

  it('makes headings bold lines', () => {
    expect(convert('# Title\n## Sub *part* ##\n###### Deep\n#hashtag')).to.equal(
      '<b>Title</b>\n<b>Sub <i>part</i></b>\n<b>Deep</b>\n#hashtag',
    );
  });

  it('keeps lists as text lines, with bullets and numbers', () => {
    expect(convert('- one\n* two **bold**\n  + nested\n1. first\n2) second\n10. tenth')).to.equal(
      '• one\n• two <b>bold</b>\n  • nested\n1. first\n2) second\n10. tenth',
    );
  });

  it('converts blockquotes, nested ones into the same quote', () => {
    expect(convert('> quoted **text**\n> more\n> > nested\n\nafter')).to.equal(
      '<blockquote>quoted <b>text</b>\nmore\nnested</blockquote>\n\nafter',
    );
  });

  it('turns horizontal rules into a line', () => {
    expect(convert('above\n\n---\n\n* * *\n___\nbelow')).to.equal('above\n\n———\n\n———\n———\nbelow');
  });

  it('keeps tables as their escaped raw text in a <pre>', () => {
    expect(convert('Results:\n| a | b |\n|---|:-:|\n| 1 < 2 | **x** |\n\ndone')).to.equal(
      'Results:\n<pre>| a | b |\n|---|:-:|\n| 1 &lt; 2 | **x** |</pre>\n\ndone',
    );
  });

  it('converts fenced code blocks, escaping and interpreting nothing inside', () => {
    const markdown = [
      '```ts',
      'const ok = a < b && **c**; // _x_',
      '```',
      '~~~',
      '<div>[x](javascript:y)</div>',
      '~~~',
      '```python title="x.py"',
      'print("hi")',
    ].join('\n');
    expect(convert(markdown)).to.equal(
      [
        '<pre><code class="language-ts">const ok = a &lt; b &amp;&amp; **c**; // _x_</code></pre>',
        '<pre>&lt;div&gt;[x](javascript:y)&lt;/div&gt;</pre>',
        '<pre><code class="language-python">print("hi")</code></pre>',
      ].join('\n'),
    );
  });

  it('takes the list indentation off a code block inside a list item', () => {
    expect(convert('1. Install:\n   ```sh\n   npm install\n     --save\n   ```')).to.equal(
      '1. Install:\n<pre><code class="language-sh">npm install\n  --save</code></pre>',
    );
  });

  it('converts a realistic answer', () => {
    const answer = [
      '## Summary',
      '',
      'The bug is in `parse_config()`: it reads **every** key, even when `strict` is *off*.',
      '',
      '1. Open `src/config.ts`',
      '2. Change the check:',
      '',
      '```ts',
      'if (key in defaults && value !== undefined) {',
      '  result[key] = value;',
      '}',
      '```',
      '',
      '> **Note:** this changes behaviour for `a < b` comparisons.',
      '',
      'See [the issue](https://github.com/example/repo/issues/1?q=a_b&x=1) for details.',
    ].join('\n');
    const html = convert(answer);
    expect(html).to.equal(
      [
        '<b>Summary</b>',
        '',
        'The bug is in <code>parse_config()</code>: it reads <b>every</b> key, even when <code>strict</code> is <i>off</i>.',
        '',
        '1. Open <code>src/config.ts</code>',
        '2. Change the check:',
        '',
        '<pre><code class="language-ts">if (key in defaults &amp;&amp; value !== undefined) {',
        '  result[key] = value;',
        '}</code></pre>',
        '',
        '<blockquote><b>Note:</b> this changes behaviour for <code>a &lt; b</code> comparisons.</blockquote>',
        '',
        'See <a href="https://github.com/example/repo/issues/1?q=a_b&amp;x=1">the issue</a> for details.',
      ].join('\n'),
    );
    expectWellFormed(html, answer);
  });

  it('is always well-formed, and never shows more than its source (random markdown, seeded)', () => {
    const random = randomSource(4_096);
    const pieces = [
      '*',
      '**',
      '***',
      '_',
      '__',
      '~',
      '~~',
      '`',
      '``',
      '```',
      '[',
      ']',
      '(',
      ')',
      '](',
      '<',
      '>',
      '&',
      '"',
      "'",
      '\\',
      '#',
      '# ',
      '> ',
      '- ',
      '* ',
      '1. ',
      '|',
      '---',
      '\n',
      '\n',
      '\n\n',
      ' ',
      ' ',
      ' ',
      'word',
      'x',
      'snake_case',
      'https://ex.com/a_b*c*',
      'mailto:a@b.c',
      '<https://x.y/_>',
      '<javascript:x>',
      '](https://x.y/a_(b))',
      '](javascript:alert(1))',
      '](tg://x "t")',
      '\n```ts\n',
      '\n~~~\n',
      '\n| a | b |\n|---|---|\n',
      '&amp;',
      '<b>',
      '</i>',
      '😀',
    ];
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(random() * 60);
      const markdown = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const html = convert(markdown);
      expectWellFormed(html, markdown);
      expect(visibleText(html).length, JSON.stringify(markdown)).to.be.at.most(markdown.length);
    }
  });
});

describe('chat/telegramParts', () => {
  const paragraph = (n: number) =>
    `Paragraph ${n} says **something** about \`code_${n}\` and a < b, with [a link](https://example.com/${n}_x).`;

  it('sends a short answer as one part, and nothing for an empty one', () => {
    expect(telegramParts('**Done.**')).to.deep.equal(['<b>Done.</b>']);
    expect(telegramParts(' \n\n ')).to.deep.equal([]);
  });

  it('splits a long answer into well-formed parts within 4096 visible characters, losing no text', () => {
    const code = [
      '```ts',
      ...Array.from({ length: 120 }, (_, i) => `const line${i} = a < b && c; // ${i}`),
      '```',
    ];
    const answer = [
      ...Array.from({ length: 60 }, (_, i) => paragraph(i)),
      code.join('\n'),
      paragraph(99),
    ].join('\n\n');
    expect(answer.length).to.be.above(10_000);
    const parts = telegramParts(answer);
    expect(parts.length).to.be.at.least(3);
    for (const part of parts) {
      expectWellFormed(part, answer);
      expect(visibleText(part).length).to.be.at.most(4096);
    }
    // The code block is cut across parts: each part holding some of it shows it as code.
    const withCode = parts.filter((part) => part.includes('const line'));
    expect(withCode.length).to.be.at.least(2);
    for (const part of withCode) expect(part).to.match(/<pre><code class="language-ts">const line\d+/);
    const shown = (html: string) => visibleText(html).replace(/\s/g, '');
    expect(parts.map(shown).join('')).to.equal(shown(markdownToTelegramHtml(answer)));
  });

  it('keeps every part within the limit on random long answers (seeded)', () => {
    const random = randomSource(7);
    const lines = [
      '**bold** and *it* & <tag>',
      '```ts',
      '```',
      '> quote _x_',
      '- item [l](https://x.y/a_b)',
      '| a | b |',
      '|---|---|',
      'https://example.com/' + 'a_b'.repeat(30),
      'x'.repeat(500),
      '',
    ];
    for (let round = 0; round < 20; round++) {
      const markdown = Array.from({ length: 800 }, () => lines[Math.floor(random() * lines.length)]).join(
        '\n',
      );
      for (const part of telegramParts(markdown)) {
        expectWellFormed(part, markdown);
        expect(visibleText(part).length).to.be.at.most(4096);
      }
    }
  });
});
