import { expect } from 'chai';
import { escapeSlack, markdownToSlackMrkdwn } from '../../../domain/chat/slack-mrkdwn.js';
import { randomSource } from '../../support/random-source.js';

const convert = markdownToSlackMrkdwn;
const WORD_JOINER = '\u2060';
const ZERO_WIDTH_SPACE = '\u200b';

/** A link this module writes: an allowed URL with no `<`, `>`, `|` or space, then optional text. */
const OUR_LINK = /^<(?:https?:\/\/|mailto:)[^<>|\s]+(?:\|[^<>]*)?>/i;
const ENTITY = /^&(?:lt|gt|amp);/;

/**
 * What could make Slack do more than show the text, or [] when nothing could: a `<` that does
 * not open one of our links (so no `<!here>`, `<@U…>` or `<#C…>`), a `&` that is not an entity,
 * a `>` that is neither a quote marker nor a link's end, and a ``` fence left open.
 */
function slackProblems(mrkdwn: string): string[] {
  const problems: string[] = [];
  for (const special of ['<!', '<@', '<#'])
    if (mrkdwn.includes(special)) problems.push(`contains ${special}`);
  if ((mrkdwn.match(/```/g)?.length ?? 0) % 2 !== 0) problems.push('odd number of ``` fences');
  for (let i = 0; i < mrkdwn.length;) {
    const rest = mrkdwn.slice(i);
    const char = mrkdwn.charAt(i);
    if (char === '<') {
      const link = OUR_LINK.exec(rest);
      if (!link) return [...problems, `raw < at ${i}`];
      i += link[0].length;
    } else if (char === '&') {
      const entity = ENTITY.exec(rest);
      if (!entity) return [...problems, `raw & at ${i}`];
      i += entity[0].length;
    } else if (char === '>' && !isQuoteMarker(mrkdwn, i)) {
      return [...problems, `raw > at ${i}`];
    } else {
      i++;
    }
  }
  return problems;
}

/** A `>` that starts a line, followed by a space or nothing: a quote marker. */
function isQuoteMarker(text: string, i: number): boolean {
  const lineStart = i === 0 || text.charAt(i - 1) === '\n';
  const next = text.charAt(i + 1);
  return lineStart && (next === ' ' || next === '\n' || next === '');
}

function expectSafe(mrkdwn: string, source: string): void {
  expect(slackProblems(mrkdwn), JSON.stringify({ source, mrkdwn })).to.deep.equal([]);
}

describe('chat/escapeSlack', () => {
  it('escapes the three characters Slack requires escaped, and nothing else', () => {
    expect(escapeSlack('a < b && c > d')).to.equal('a &lt; b &amp;&amp; c &gt; d');
    expect(escapeSlack('<!channel> *x* _y_ "q"')).to.equal('&lt;!channel&gt; *x* _y_ "q"');
    expect(escapeSlack('&lt; stays text')).to.equal('&amp;lt; stays text');
  });
});

describe('chat/markdownToSlackMrkdwn', () => {
  it('escapes <, > and & in text', () => {
    expect(convert('a < b && c > d')).to.equal('a &lt; b &amp;&amp; c &gt; d');
    expect(convert('Use <br> & <div>')).to.equal('Use &lt;br&gt; &amp; &lt;div&gt;');
  });

  it('converts bold, italic and strikethrough to Slack markers', () => {
    expect(convert('This is **important** and __also bold__.')).to.equal(
      'This is *important* and *also bold*.',
    );
    expect(convert('An *aside* and an _other_ one.')).to.equal('An _aside_ and an _other_ one.');
    expect(convert('~~old~~ and ~gone~, new')).to.equal('~old~ and ~gone~, new');
  });

  it('nests bold in italic, and italic in bold', () => {
    expect(convert('*really **very** important*')).to.equal('_really *very* important_');
    expect(convert('**bold _and italic_**')).to.equal('*bold _and italic_*');
    expect(convert('***both***')).to.equal('*_both_*');
  });

  it('does not repeat a style inside itself, which Slack cannot show', () => {
    expect(convert('**outer __inner__ outer**')).to.equal('*outer inner outer*');
    expect(convert('*a _b_ c*')).to.equal('_a b c_');
  });

  it('leaves underscores inside snake_case words alone', () => {
    expect(convert('Set max_retry_count in config_file.yaml')).to.equal(
      'Set max_retry_count in config_file.yaml',
    );
    expect(convert('call __init__ then _private_helper_')).to.equal('call *init* then _private_helper_');
    expect(convert('the my_var_ name')).to.equal('the my_var_ name');
  });

  it('leaves unbalanced markers as text', () => {
    expect(convert('**not closed')).to.equal('**not closed');
    expect(convert('2 * 3 * 4 = 24')).to.equal('2 * 3 * 4 = 24');
    expect(convert('a ~~b and _c')).to.equal('a ~~b and _c');
    expect(convert('a ~~~tilde run~~~ b')).to.equal('a ~~~tilde run~~~ b');
  });

  it('keeps inline code, interpreting nothing inside but escaping it', () => {
    expect(convert('Run `npm run **build**` now')).to.equal('Run `npm run **build**` now');
    expect(convert('`a<b> && c`')).to.equal('`a&lt;b&gt; &amp;&amp; c`');
    expect(convert('`@here` and `_x_`')).to.equal('`@here` and `_x_`');
  });

  it('shows a backtick inside inline code as a look-alike, since Slack ends code at any backtick', () => {
    expect(convert('``a ` b``')).to.equal('`a \u02cb b`');
  });

  it('keeps an unclosed backtick run literal, but never as a fence', () => {
    expect(convert('an odd ` tick')).to.equal('an odd ` tick');
    expect(convert('write ``` to fence')).to.equal(
      `write \`${ZERO_WIDTH_SPACE}\`${ZERO_WIDTH_SPACE}\` to fence`,
    );
  });

  it('converts fenced code blocks, dropping the language and interpreting nothing', () => {
    const markdown = ['```tsx', 'const a = <div>{x && y}</div>;', '// **not bold** @here', '```'].join('\n');
    expect(convert(markdown)).to.equal(
      ['```', 'const a = &lt;div&gt;{x &amp;&amp; y}&lt;/div&gt;;', '// **not bold** @here', '```'].join(
        '\n',
      ),
    );
  });

  it('keeps code indentation, takes off a list item indentation, and closes an unclosed block', () => {
    expect(convert('1. Run:\n   ```sh\n   make\n     all\n   ```')).to.equal(
      '1. Run:\n```\nmake\n  all\n```',
    );
    expect(convert('```\nnever closed <x>')).to.equal('```\nnever closed &lt;x&gt;\n```');
  });

  it('breaks a ``` inside code, so only the fences it writes are fences', () => {
    const markdown = ['~~~markdown', '```js', 'x', '```', '~~~'].join('\n');
    const broken = `\`${ZERO_WIDTH_SPACE}\`${ZERO_WIDTH_SPACE}\``;
    expect(convert(markdown)).to.equal(['```', `${broken}js`, 'x', broken, '```'].join('\n'));
  });

  it('converts links to http, https and mailto URLs', () => {
    expect(convert('See [the docs](https://example.com/docs).')).to.equal(
      'See <https://example.com/docs|the docs>.',
    );
    expect(convert('[mail me](mailto:a@example.com)')).to.equal('<mailto:a@example.com|mail me>');
    expect(convert('[**bold** link](http://x.org "title")')).to.equal('<http://x.org|*bold* link>');
    expect(convert('[](https://x.org)')).to.equal('<https://x.org>');
  });

  it('escapes URLs, and encodes the | that would end one', () => {
    expect(convert('[q](https://x.org/?a=1&b=2|3)')).to.equal('<https://x.org/?a=1&amp;b=2%7C3|q>');
    expect(convert('[a > b](https://x.org)')).to.equal('<https://x.org|a &gt; b>');
  });

  it('keeps URLs with _ and * whole, as links', () => {
    expect(convert('See https://example.com/snake_case/*star*/_x_/y now')).to.equal(
      'See <https://example.com/snake_case/*star*/_x_/y> now',
    );
    expect(convert('[wiki](https://en.wikipedia.org/wiki/Foo_(bar)) and _it_')).to.equal(
      '<https://en.wikipedia.org/wiki/Foo_(bar)|wiki> and _it_',
    );
    // GFM: trailing punctuation ends the sentence, not the URL.
    expect(convert('Go to https://example.com/a_b.')).to.equal('Go to <https://example.com/a_b>.');
    expect(convert('_see https://x.org/a_b_')).to.equal('_see <https://x.org/a_b>_');
    expect(convert('<https://example.com/a_b>')).to.equal('<https://example.com/a_b>');
  });

  it('refuses links to anything but http, https and mailto', () => {
    expect(convert('[click](javascript:alert(1))')).to.equal('[click](javascript:alert(1))');
    expect(convert('[x](data:text/html,<b>hi</b>)')).to.equal('[x](data:text/html,&lt;b&gt;hi&lt;/b&gt;)');
    expect(convert('<javascript:alert(1)>')).to.equal('&lt;javascript:alert(1)&gt;');
    expect(convert('[f](file:///etc/passwd)')).to.equal('[f](file:///etc/passwd)');
  });

  it('never lets the answer write a mention or a channel link', () => {
    for (const markdown of ['<!channel>', '<!here|here>', '<!everyone>', '<@U123>', '<#C123|general>']) {
      const mrkdwn = convert(`Hey ${markdown} look`);
      expect(mrkdwn).to.equal(`Hey ${escapeSlack(markdown)} look`);
      expectSafe(mrkdwn, markdown);
    }
    expect(convert('[<!channel>](https://x.org)')).to.equal('<https://x.org|&lt;!channel&gt;>');
  });

  it('keeps @here, @channel and @everyone as text that cannot ping', () => {
    expect(convert('Ping @here, @channel and @Everyone!')).to.equal(
      `Ping @${WORD_JOINER}here, @${WORD_JOINER}channel and @${WORD_JOINER}Everyone!`,
    );
    expect(convert('**@here** [@channel](https://x.org) [@here](javascript:x)')).to.equal(
      `*@${WORD_JOINER}here* <https://x.org|@${WORD_JOINER}channel> [@${WORD_JOINER}here](javascript:x)`,
    );
    expect(convert('@heresy and @channels and mail@here.com')).to.equal(
      `@heresy and @channels and mail@${WORD_JOINER}here.com`,
    );
  });

  it('makes headings bold lines', () => {
    expect(convert('# Summary')).to.equal('*Summary*');
    expect(convert('### Step **2**: build ###')).to.equal('*Step 2: build*');
    expect(convert('#hashtag')).to.equal('#hashtag');
  });

  it('turns bullet lists into • lines and keeps numbered lists', () => {
    expect(convert('- one\n* two\n+ three\n  - nested *it*')).to.equal(
      '• one\n• two\n• three\n  • nested _it_',
    );
    expect(convert('1. first\n2) second\n10. tenth')).to.equal('1. first\n2) second\n10. tenth');
  });

  it('keeps quotes as > quotes, flattening nested ones', () => {
    expect(convert('> **Note:** be careful\n> > nested\n>\n> - item')).to.equal(
      '> *Note:* be careful\n> nested\n>\n> • item',
    );
    expect(convert('a > b')).to.equal('a &gt; b');
  });

  it('turns horizontal rules into a line', () => {
    expect(convert('above\n\n---\n\n***\n\n_ _ _\nbelow')).to.equal('above\n\n———\n\n———\n\n———\nbelow');
  });

  it('keeps tables as their escaped raw text in a code block', () => {
    const table = ['| Name | Value |', '|:-----|------:|', '| `a<b>` | **1** & 2 |'].join('\n');
    expect(convert(`Results:\n\n${table}\n\nDone.`)).to.equal(
      [
        'Results:',
        '',
        '```',
        '| Name | Value |',
        '|:-----|------:|',
        '| `a&lt;b&gt;` | **1** &amp; 2 |',
        '```',
        '',
        'Done.',
      ].join('\n'),
    );
  });

  it('converts a realistic answer', () => {
    const markdown = [
      '## Fix for the `parse_config` crash',
      '',
      'The crash comes from **`null` values** in `settings_file`. See [issue #42](https://github.com/o/r/issues/42).',
      '',
      '1. Update the loader:',
      '   ```python',
      '   if value is None and key != "<root>":',
      '       return {}',
      '   ```',
      '2. Re-run the tests: *all* should pass.',
      '',
      '> ~~Old workaround~~: restart the worker.',
      '',
      'Let @channel know when deployed & verified.',
    ].join('\r\n');
    expect(convert(markdown)).to.equal(
      [
        '*Fix for the `parse_config` crash*',
        '',
        'The crash comes from *`null` values* in `settings_file`. See <https://github.com/o/r/issues/42|issue #42>.',
        '',
        '1. Update the loader:',
        '```',
        'if value is None and key != "&lt;root&gt;":',
        '    return {}',
        '```',
        '2. Re-run the tests: _all_ should pass.',
        '',
        '> ~Old workaround~: restart the worker.',
        '',
        `Let @${WORD_JOINER}channel know when deployed &amp; verified.`,
      ].join('\n'),
    );
  });

  it('returns nothing for blank input, and collapses runs of blank lines', () => {
    expect(convert('')).to.equal('');
    expect(convert('\n \n\t\n')).to.equal('');
    expect(convert('\n\na\n\n\n\nb\n\n')).to.equal('a\n\nb');
  });

  it('stays fast on many openers that nothing closes', () => {
    const started = Date.now();
    convert('**_~~'.repeat(2_000) + '[a](' + '*'.repeat(5_000));
    expect(Date.now() - started).to.be.below(2_000);
  });

  it('never writes a mention, a stray <, > or &, or an open fence (random markdown, seeded)', () => {
    const random = randomSource(3_000);
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
      '~~~',
      '[',
      ']',
      '(',
      ')',
      '](',
      '<',
      '>',
      '&',
      '|',
      '\\',
      '@',
      '!',
      '#',
      '# ',
      '> ',
      '- ',
      '* ',
      '1. ',
      '---',
      '|---|',
      '\n',
      '\n',
      '\n\n',
      ' ',
      ' ',
      ' ',
      'word',
      'snake_case',
      '<!channel>',
      '<!here>',
      '<@U123>',
      '<#C42|general>',
      '@here',
      '@everyone',
      'https://example.com/a_b*c|d',
      'mailto:me@example.com',
      'javascript:alert(1)',
      '(https://x.org/<y>)',
      '<https://x.org>',
      '&amp;',
    ];
    for (let round = 0; round < 3_000; round++) {
      const size = 1 + Math.floor(random() * 40);
      let markdown = '';
      for (let k = 0; k < size; k++) markdown += pieces[Math.floor(random() * pieces.length)];
      expectSafe(convert(markdown), markdown);
    }
  });
});
