/**
 * Turns the markdown an assistant writes (the CommonMark and GFM it uses) into Slack's mrkdwn
 * (https://api.slack.com/reference/surfaces/formatting). Slack has no escape for its formatting
 * characters and reads `<...>` as links and mentions, so:
 *
 * - every `<`, `>` and `&` is escaped, code included, except in the `<url>` and `<url|text>` links
 *   made here for http, https and mailto URLs: an answer can never write `<!channel>` or `<@U123>`;
 * - `@here`, `@channel` and `@everyone` get an invisible word joiner after the `@`, so they stay
 *   text even if the message is sent with `link_names` or `parse: full`;
 * - a run of three backticks is only ever a code block fence made here: any other is broken by
 *   zero-width spaces, so that a stray one cannot turn the rest of the message into code.
 */
import { closesFence, fenceOpening } from './split-message.js';
import {
  ASCII_PUNCTUATION,
  BULLET_ITEM,
  type Closer,
  closingBracket,
  type DelimiterRun,
  delimiterRun,
  HEADING,
  linkTarget,
  MAX_NESTING,
  NUMBERED_ITEM,
  QUOTE_LINE,
  QUOTE_MARKERS,
  runLength,
  TABLE_RULE,
  THEMATIC_BREAK,
  urlEnd,
} from './markdown-syntax.js';

/** Escapes the three characters Slack requires escaped in message text. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function markdownToSlackMrkdwn(markdown: string): string {
  return joinBlocks(renderBlocks(markdown.replace(/\r\n?/g, '\n').split('\n')));
}

const WORD_JOINER = '\u2060';
const ZERO_WIDTH_SPACE = '\u200b';
const SPECIAL_MENTIONS = /@(here|channel|everyone)\b/gi;
/** The same, matched only where the scanner is. */
const SPECIAL_MENTION_AT = /@(?:here|channel|everyone)\b/iy;

/** `@here` as text that no Slack setting turns into a mention. */
function neutralizeMentions(text: string): string {
  return text.replace(SPECIAL_MENTIONS, `@${WORD_JOINER}$1`);
}

/** Text shown as written: escaped, and never a mention. */
function plainText(text: string): string {
  return neutralizeMentions(escapeSlack(text));
}

/** Slack opens a code block at any ```, even mid-line: a run that is not our fence is broken up. */
function breakBacktickRuns(text: string): string {
  return text.replace(/`{3,}/g, (run) => run.split('').join(ZERO_WIDTH_SPACE));
}

/** A code block as Slack writes one: the fences alone on their lines, no language. */
function codeFence(content: string): string {
  return `\`\`\`\n${breakBacktickRuns(escapeSlack(content))}\n\`\`\``;
}

// ---------------------------------------------------------------------------------------------
// Blocks: code, quotes and tables span lines; everything else is one line.

interface Block {
  mrkdwn: string;
  /** The index of the line after the block. */
  next: number;
}

function renderBlocks(lines: readonly string[]): string[] {
  const blocks: string[] = [];
  for (let i = 0; i < lines.length;) {
    const block = codeBlock(lines, i) ?? quoteBlock(lines, i) ?? tableBlock(lines, i) ?? lineBlock(lines, i);
    blocks.push(block.mrkdwn);
    i = block.next;
  }
  return blocks;
}

/** Joins blocks one per line, with at most one blank line between them and none around. */
function joinBlocks(blocks: readonly string[]): string {
  const kept = blocks.filter((mrkdwn, i) => mrkdwn !== '' || (i > 0 && blocks[i - 1] !== ''));
  return kept.join('\n').replace(/^\n+|\n+$/g, '');
}

function lineBlock(lines: readonly string[], start: number): Block {
  return { mrkdwn: renderLine(lines[start]!), next: start + 1 };
}

/** A fenced block, its language dropped: Slack shows none. An unclosed one runs to the end. */
function codeBlock(lines: readonly string[], start: number): Block | null {
  const fence = fenceOpening(lines[start]!);
  if (!fence) return null;
  let close = start + 1;
  while (close < lines.length && !closesFence(lines[close]!, fence)) close++;
  // A block inside a list item is indented with it: that indentation is the list's, not the code's.
  const indent = new RegExp(`^[ \\t]{0,${fence.indent.length}}`);
  const code = lines
    .slice(start + 1, close)
    .map((line) => line.replace(indent, ''))
    .join('\n');
  return { mrkdwn: codeFence(code), next: close + 1 };
}

/**
 * Consecutive `>` lines, rendered as blocks and each output line quoted again. Every level of
 * `>` is taken off first, because Slack does not nest quotes.
 */
function quoteBlock(lines: readonly string[], start: number): Block | null {
  let next = start;
  while (next < lines.length && QUOTE_LINE.test(lines[next]!)) next++;
  if (next === start) return null;
  const inner = joinBlocks(
    renderBlocks(lines.slice(start, next).map((line) => line.replace(QUOTE_MARKERS, ''))),
  );
  const quoted = inner === '' ? '' : inner.split('\n').map(quoteLine).join('\n');
  return { mrkdwn: quoted, next };
}

function quoteLine(line: string): string {
  return line === '' ? '>' : `> ${line}`;
}

/** A table stays as its raw text in a code block: Slack has no tables, and columns need a fixed font. */
function tableBlock(lines: readonly string[], start: number): Block | null {
  const rule = lines[start + 1];
  if (
    !lines[start]!.includes('|') ||
    rule === undefined ||
    !rule.includes('|') ||
    !TABLE_RULE.test(rule.trim())
  ) {
    return null;
  }
  let next = start + 2;
  while (next < lines.length && lines[next]!.includes('|') && lines[next]!.trim() !== '') next++;
  return { mrkdwn: codeFence(lines.slice(start, next).join('\n')), next };
}

/** One line outside code, quotes and tables. Slack has no headings or lists: they become text. */
function renderLine(line: string): string {
  if (line.trim() === '') return '';
  const heading = HEADING.exec(line);
  if (heading) {
    const title = (heading[1] ?? '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
    // Bold already, so `## **Note**` does not become `**Note**`, which Slack shows with stars.
    return title ? `*${renderInline(title, BOLD)}*` : '';
  }
  if (THEMATIC_BREAK.test(line)) return '———';
  const bullet = BULLET_ITEM.exec(line);
  if (bullet) return `${bullet[1]}• ${renderInline(bullet[2]!)}`;
  const numbered = NUMBERED_ITEM.exec(line);
  if (numbered) return `${numbered[1]}${numbered[2]} ${renderInline(numbered[3]!)}`;
  return renderInline(line);
}

// ---------------------------------------------------------------------------------------------
// Inline: a scanner over one line. Code spans, links, URLs, mentions and backslash escapes are
// read whole first (nothing inside them is emphasis); an emphasis opener becomes a Slack marker
// only if a closer is found at the same level, so an unbalanced marker stays literal text.

const BOLD = '*';
const ITALIC = '_';
const STRIKE = '~';

interface Inline {
  text: string;
  /** Scans by (from, end, links, styles, closer): each is done once, however often it is tried. */
  memo: Map<string, Scan>;
  /** The run of `*`, `_` or `~` each such character is in, read once: runs can be long. */
  runs: Map<number, DelimiterRun>;
  /** By character, the last place a closer of it could be: an opener after that is text at once. */
  lastCloser: Map<string, number>;
}

/** Where a scan is: `links` false inside link text; `styles` the Slack markers already open. */
interface Context {
  links: boolean;
  styles: string;
  depth: number;
}

interface Scan {
  mrkdwn: string;
  /** Where the closer looked for was found, or null when the range ended first. */
  stop: number | null;
}

interface Piece {
  mrkdwn: string;
  end: number;
}

function renderInline(text: string, styles = ''): string {
  const runs = delimiterRuns(text);
  const inline: Inline = { text, memo: new Map(), runs, lastCloser: lastClosers(runs) };
  const scanned = scan(inline, 0, text.length, { links: true, styles, depth: 0 }, null);
  // Literal backticks next to each other (or to a code span) would otherwise make a fence.
  return breakBacktickRuns(scanned.mrkdwn);
}

function delimiterRuns(text: string): Map<number, DelimiterRun> {
  const runs = new Map<number, DelimiterRun>();
  for (let i = 0; i < text.length;) {
    if (!isEmphasisChar(text.charAt(i))) {
      i++;
      continue;
    }
    const run = delimiterRun(text, i);
    for (; i < run.end; i++) runs.set(i, run);
  }
  return runs;
}

/** Without this, each of many openers that nothing closes would scan to the line's end. */
function lastClosers(runs: Map<number, DelimiterRun>): Map<string, number> {
  const last = new Map<string, number>();
  for (const run of runs.values()) if (run.canClose) last.set(run.char, run.end - 1);
  return last;
}

function isEmphasisChar(char: string): boolean {
  return char === '*' || char === '_' || char === '~';
}

/** Renders `text[from, end)`, stopping early at `closer` when one is given. */
function scan(inline: Inline, from: number, end: number, context: Context, closer: Closer | null): Scan {
  const key = `${from}:${end}:${context.links}:${context.styles}:${closer ? closer.char + closer.size : ''}`;
  const known = inline.memo.get(key);
  if (known) return known;
  const result = scanRange(inline, from, end, context, closer);
  inline.memo.set(key, result);
  return result;
}

function scanRange(inline: Inline, from: number, end: number, context: Context, closer: Closer | null): Scan {
  let mrkdwn = '';
  for (let i = from; i < end;) {
    if (closer && closesAt(inline, i, from, end, closer)) return { mrkdwn, stop: i };
    const piece = atomAt(inline, i, end, context) ?? emphasisAt(inline, i, end, context);
    if (piece) {
      mrkdwn += piece.mrkdwn;
      i = piece.end;
    } else {
      mrkdwn += escapeSlack(inline.text.charAt(i));
      i++;
    }
  }
  return { mrkdwn, stop: null };
}

/** A construct read whole: nothing inside it is emphasis. */
function atomAt(inline: Inline, i: number, end: number, context: Context): Piece | null {
  const { text } = inline;
  switch (text.charAt(i)) {
    case '\\':
      return escapedCharacter(text, i, end);
    case '`':
      return codeSpan(text, i, end, context.links);
    case '<':
      return context.links ? autolink(text, i, end) : null;
    case '[':
      return link(inline, i, end, context);
    case '@':
      return specialMention(text, i, end);
    default:
      return bareUrl(text, i, end, context.links);
  }
}

/** `\*` is a literal `*`. Slack has no escape, so it is shown bare (paired ones may format). */
function escapedCharacter(text: string, i: number, end: number): Piece | null {
  const next = text.charAt(i + 1);
  return i + 1 < end && ASCII_PUNCTUATION.test(next) ? { mrkdwn: escapeSlack(next), end: i + 2 } : null;
}

function specialMention(text: string, i: number, end: number): Piece | null {
  SPECIAL_MENTION_AT.lastIndex = i;
  const match = SPECIAL_MENTION_AT.exec(text);
  if (!match || i + match[0].length > end) return null;
  return { mrkdwn: neutralizeMentions(match[0]), end: i + match[0].length };
}

/** Slack's inline code cannot hold a backtick: one inside is shown as the look-alike `ˋ`. */
const BACKTICK_LOOKALIKE = '\u02cb';

/**
 * `code`, or ``code with ` inside``; an opening run with no closing run is literal text. Only
 * escaping touches the content: Slack formats nothing inside code. In link text (`links` false)
 * it is plain text, since a link's text is not reliably formatted as code.
 */
function codeSpan(text: string, i: number, end: number, links: boolean): Piece {
  const size = runLength(text, i, end, '`');
  for (let j = i + size; j < end;) {
    const run = runLength(text, j, end, '`');
    if (run === size) {
      const content = text.slice(i + size, j);
      // CommonMark: one space each side is padding, so `` `x` `` can show backticks.
      const padded = content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim();
      const unpadded = padded ? content.slice(1, -1) : content;
      const code = escapeSlack(unpadded).replace(/`/g, BACKTICK_LOOKALIKE);
      return { mrkdwn: links ? `\`${code}\`` : code, end: j + size };
    }
    j += Math.max(run, 1);
  }
  return { mrkdwn: text.slice(i, i + size), end: i + size };
}

/** Slack opens these itself; anything else (javascript:, data:, file:) stays text. */
const ALLOWED_URL = /^(?:https?:\/\/|mailto:)[^\s\p{Cc}]+$/iu;

/**
 * A URL inside `<...>`: escaped like text, and percent-encoded where Slack's syntax would read a
 * character as its own (`|` ends the URL, a backtick could make a fence).
 */
function slackUrl(url: string): string {
  return escapeSlack(url).replace(/\|/g, '%7C').replace(/`/g, '%60');
}

/** `<https://example.com>` stays a link, in Slack's own syntax. */
function autolink(text: string, i: number, end: number): Piece | null {
  const close = text.indexOf('>', i);
  if (close < 0 || close >= end) return null;
  const url = text.slice(i + 1, close);
  return ALLOWED_URL.test(url) ? { mrkdwn: `<${slackUrl(url)}>`, end: close + 1 } : null;
}

/**
 * `[text](url)` and `[text](url "title")` become `<url|text>`. A link to a refused URL, or a link
 * inside link text, stays as its source text.
 */
function link(inline: Inline, i: number, end: number, context: Context): Piece | null {
  const { text } = inline;
  const label = closingBracket(text, i, end);
  if (label === null || text.charAt(label + 1) !== '(') return null;
  const target = linkTarget(text, label + 2, end);
  if (!target) return null;
  if (!context.links || !ALLOWED_URL.test(target.url) || context.depth >= MAX_NESTING) {
    return { mrkdwn: plainText(text.slice(i, target.end)), end: target.end };
  }
  const labelContext = { ...context, links: false, depth: context.depth + 1 };
  const labelMrkdwn = scan(inline, i + 1, label, labelContext, null).mrkdwn.trim();
  const url = slackUrl(target.url);
  return { mrkdwn: labelMrkdwn ? `<${url}|${labelMrkdwn}>` : `<${url}>`, end: target.end };
}

const URL_START = /(?:https?:\/\/|mailto:)/iy;
/**
 * A bare URL, read whole so that the `_` and `*` in it are never emphasis, and written as a
 * `<url>` link so that Slack does not format them either. Inside link text it is plain text.
 */
function bareUrl(text: string, i: number, end: number, links: boolean): Piece | null {
  if (!/[hm]/i.test(text.charAt(i))) return null;
  if (i > 0 && /[\p{L}\p{N}]/u.test(text.charAt(i - 1))) return null;
  URL_START.lastIndex = i;
  if (!URL_START.test(text)) return null;
  const schemeEnd = URL_START.lastIndex;
  let j = schemeEnd;
  while (j < end && !/\s/.test(text.charAt(j)) && text.charAt(j) !== '<') j++;
  j = urlEnd(text, i, j);
  if (j <= schemeEnd) return null;
  const url = text.slice(i, j);
  return { mrkdwn: links ? `<${slackUrl(url)}>` : plainText(url), end: j };
}

/** The Slack marker for a markdown delimiter of a size: `**`/`__` bold, `*`/`_` italic, `~`/`~~` strike. */
function slackMarker(char: string, size: number): string {
  if (char === '~') return STRIKE;
  return size === 2 ? BOLD : ITALIC;
}

/** The delimiter sizes to try at an opener: strong before emphasis, so `***x***` is both. */
function openerSizes(char: string, run: DelimiterRun, i: number): number[] {
  if (char !== '~') return [2, 1];
  // GFM strikethrough: a whole run of one or two tildes, closed by a run of the same length.
  const size = run.end - run.start;
  return run.start === i && size <= 2 ? [size] : [];
}

/** An emphasis marker when a closer is found, else null (literal). */
function emphasisAt(inline: Inline, i: number, end: number, context: Context): Piece | null {
  const run = inline.runs.get(i);
  if (!run?.canOpen || context.depth >= MAX_NESTING) return null;
  const { char } = run;
  if ((inline.lastCloser.get(char) ?? -1) <= i) return null;
  for (const size of openerSizes(char, run, i)) {
    if (Math.min(run.end, end) - i < size) continue;
    const marker = slackMarker(char, size);
    const inner = scan(inline, i + size, end, innerContext(context, marker), { char, size });
    if (inner.stop !== null) {
      return { mrkdwn: styled(inner.mrkdwn, marker, context.styles), end: inner.stop + size };
    }
  }
  return null;
}

/** Styles are kept in one order, so that scans memoized under the same set are shared. */
function innerContext(context: Context, marker: string): Context {
  const styles = [BOLD, ITALIC, STRIKE].filter((style) => style === marker || context.styles.includes(style));
  return { ...context, styles: styles.join(''), depth: context.depth + 1 };
}

/** Slack cannot nest a style in itself (`*a *b* c*`): inside bold, bold adds nothing. */
function styled(mrkdwn: string, marker: string, openStyles: string): string {
  return openStyles.includes(marker) ? mrkdwn : `${marker}${mrkdwn}${marker}`;
}

function closesAt(inline: Inline, i: number, from: number, end: number, closer: Closer): boolean {
  const run = inline.runs.get(i);
  if (!run || run.char !== closer.char || i === from) return false;
  if (!run.canClose || Math.min(run.end, end) - i < closer.size) return false;
  return closer.char !== '~' || (run.start === i && run.end - run.start === closer.size);
}
