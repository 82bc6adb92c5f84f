/**
 * Turns the markdown an assistant writes (the CommonMark and GFM it uses) into the HTML of
 * Telegram's Bot API (parse_mode HTML). Telegram knows a few tags and refuses a whole message
 * whose tags do not balance, so every tag here is closed by the function that opened it, around
 * content rendered in full first: the output is well-formed whatever the input.
 *
 * The visible text never grows: each construct shows at most the characters it was written
 * with. telegramParts relies on that to keep parts within Telegram's limit.
 */
import { closesFence, fenceOpening, PLATFORM_TEXT_LIMITS, splitMessage } from './split-message.js';
import {
  ASCII_PUNCTUATION,
  BULLET_ITEM,
  type Closer,
  closingBracket,
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

/** Escapes text for Telegram HTML outside tags: the three characters Telegram requires escaped. */
export function escapeTelegramHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const ESCAPED: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function escapeCharacter(char: string): string {
  return ESCAPED[char] ?? char;
}

/** Escapes an attribute value, which is written in double quotes. */
function escapeAttribute(value: string): string {
  return escapeTelegramHtml(value).replace(/"/g, '&quot;');
}

export function markdownToTelegramHtml(markdown: string): string {
  return joinBlocks(renderBlocks(markdown.replace(/\r\n?/g, '\n').split('\n')));
}

/** Markdown is split here first: room for what converting can add, well under 4096. */
const MARKDOWN_PART_LIMIT = 3500;
/** Below this, splitting again would only make many tiny messages. */
const SMALLEST_PART_LIMIT = 256;

/**
 * The messages to send for one answer: split, then converted, each at most Telegram's limit in
 * visible text (which is what Telegram counts) and well-formed. Parts that show nothing are left
 * out, since Telegram refuses an empty message.
 */
export function telegramParts(markdown: string): string[] {
  return partsWithin(markdown, MARKDOWN_PART_LIMIT);
}

function partsWithin(markdown: string, limit: number): string[] {
  return splitMessage(markdown, limit).flatMap((part) => {
    const html = markdownToTelegramHtml(part);
    if (visibleLength(html) > PLATFORM_TEXT_LIMITS.telegram && limit > SMALLEST_PART_LIMIT) {
      return partsWithin(part, Math.floor(limit / 2));
    }
    return visibleLength(html) > 0 ? [html] : [];
  });
}

/** The length Telegram counts: tags dropped, each entity one character. */
function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|amp|quot);/g, '&').length;
}

// ---------------------------------------------------------------------------------------------
// Blocks: code, quotes and tables span lines; everything else is one line.

interface Block {
  html: string;
  /** The index of the line after the block. */
  next: number;
}

function renderBlocks(lines: readonly string[]): string[] {
  const blocks: string[] = [];
  for (let i = 0; i < lines.length;) {
    const block = codeBlock(lines, i) ?? quoteBlock(lines, i) ?? tableBlock(lines, i) ?? lineBlock(lines, i);
    blocks.push(block.html);
    i = block.next;
  }
  return blocks;
}

/** Joins blocks one per line, with at most one blank line between them and none around. */
function joinBlocks(blocks: readonly string[]): string {
  const kept = blocks.filter((html, i) => html !== '' || (i > 0 && blocks[i - 1] !== ''));
  return kept.join('\n').replace(/^\n+|\n+$/g, '');
}

function lineBlock(lines: readonly string[], start: number): Block {
  return { html: renderLine(lines[start]!), next: start + 1 };
}

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
  const language = /^[\w#+.-]+/.exec(fence.info)?.[0];
  const html = language
    ? `<pre><code class="language-${escapeAttribute(language)}">${escapeTelegramHtml(code)}</code></pre>`
    : `<pre>${escapeTelegramHtml(code)}</pre>`;
  return { html, next: close + 1 };
}

/**
 * Consecutive `>` lines, rendered as blocks inside one blockquote. Every level of `>` is taken
 * off, because Telegram does not nest blockquotes.
 */
function quoteBlock(lines: readonly string[], start: number): Block | null {
  let next = start;
  while (next < lines.length && QUOTE_LINE.test(lines[next]!)) next++;
  if (next === start) return null;
  const inner = joinBlocks(
    renderBlocks(lines.slice(start, next).map((line) => line.replace(QUOTE_MARKERS, ''))),
  );
  return { html: inner ? `<blockquote>${inner}</blockquote>` : '', next };
}

/** A table stays as its raw text in a <pre>: Telegram has no tables, and columns need a fixed font. */
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
  return { html: `<pre>${escapeTelegramHtml(lines.slice(start, next).join('\n'))}</pre>`, next };
}

/** One line outside code, quotes and tables. Telegram has no headings or lists: they become text. */
function renderLine(line: string): string {
  if (line.trim() === '') return '';
  const heading = HEADING.exec(line);
  if (heading) {
    const title = (heading[1] ?? '').replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
    return title ? `<b>${renderInline(title)}</b>` : '';
  }
  if (THEMATIC_BREAK.test(line)) return '———';
  const bullet = BULLET_ITEM.exec(line);
  if (bullet) return `${bullet[1]}• ${renderInline(bullet[2]!)}`;
  const numbered = NUMBERED_ITEM.exec(line);
  if (numbered) return `${numbered[1]}${numbered[2]} ${renderInline(numbered[3]!)}`;
  return renderInline(line);
}

// ---------------------------------------------------------------------------------------------
// Inline: a scanner over one line. Code spans, links, URLs and backslash escapes are read whole
// first (nothing inside them is emphasis); an emphasis opener becomes a tag only if a closer is
// found at the same level, so an unbalanced marker stays literal text.

interface Inline {
  text: string;
  /** Scans by (from, end, links, closer): each is done once, however often it is tried. */
  memo: Map<string, Scan>;
  /** By character, the last place a closer of it could be: an opener after that is text at once. */
  lastCloser: Map<string, number>;
}

interface Scan {
  html: string;
  /** Where the closer looked for was found, or null when the range ended first. */
  stop: number | null;
}

interface Piece {
  html: string;
  end: number;
}

function renderInline(text: string): string {
  return scan({ text, memo: new Map(), lastCloser: lastClosers(text) }, 0, text.length, true, null, 0).html;
}

/** Without this, each of many openers that nothing closes would scan to the line's end. */
function lastClosers(text: string): Map<string, number> {
  const last = new Map<string, number>();
  for (let i = 0; i < text.length;) {
    const char = text.charAt(i);
    if (char !== '*' && char !== '_' && char !== '~') {
      i++;
      continue;
    }
    const run = delimiterRun(text, i);
    if (run.canClose) last.set(char, run.end - 1);
    i = run.end;
  }
  return last;
}

/** Renders `text[from, end)`, stopping early at `closer` when one is given. */
function scan(
  inline: Inline,
  from: number,
  end: number,
  links: boolean,
  closer: Closer | null,
  depth: number,
): Scan {
  const key = `${from}:${end}:${links}:${closer ? closer.char + closer.size : ''}`;
  const known = inline.memo.get(key);
  if (known) return known;
  const result = scanRange(inline, from, end, links, closer, depth);
  inline.memo.set(key, result);
  return result;
}

function scanRange(
  inline: Inline,
  from: number,
  end: number,
  links: boolean,
  closer: Closer | null,
  depth: number,
): Scan {
  let html = '';
  for (let i = from; i < end;) {
    if (closer && closesAt(inline.text, i, from, end, closer)) return { html, stop: i };
    const piece = atomAt(inline, i, end, links, depth) ?? emphasisAt(inline, i, end, links, depth);
    if (piece) {
      html += piece.html;
      i = piece.end;
    } else {
      html += escapeCharacter(inline.text.charAt(i));
      i++;
    }
  }
  return { html, stop: null };
}

/** A construct read whole: nothing inside it is emphasis. */
function atomAt(inline: Inline, i: number, end: number, links: boolean, depth: number): Piece | null {
  const { text } = inline;
  switch (text.charAt(i)) {
    case '\\':
      return escapedCharacter(text, i, end);
    case '`':
      return codeSpan(text, i, end, links);
    case '<':
      return links ? autolink(text, i, end) : null;
    case '[':
      return link(inline, i, end, links, depth);
    default:
      return bareUrl(text, i, end);
  }
}

function escapedCharacter(text: string, i: number, end: number): Piece | null {
  const next = text.charAt(i + 1);
  return i + 1 < end && ASCII_PUNCTUATION.test(next) ? { html: escapeTelegramHtml(next), end: i + 2 } : null;
}

/**
 * `code`, or ``code with ` inside``; an opening run with no closing run is literal text. In link
 * text (`links` false) it is plain text: Telegram lets no entity but b, i, u, s and spoilers
 * inside a link.
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
      const html = escapeTelegramHtml(unpadded);
      return { html: links ? `<code>${html}</code>` : html, end: j + size };
    }
    j += Math.max(run, 1);
  }
  return { html: escapeTelegramHtml(text.slice(i, i + size)), end: i + size };
}

/** Telegram opens these itself; anything else (javascript:, data:, file:) is refused. */
const ALLOWED_URL = /^(?:(?:https?|tg):\/\/|mailto:)[^\s\p{Cc}]+$/iu;

function linkHtml(url: string, innerHtml: string): string {
  return `<a href="${escapeAttribute(url)}">${innerHtml}</a>`;
}

/** `<https://example.com>` */
function autolink(text: string, i: number, end: number): Piece | null {
  const close = text.indexOf('>', i);
  if (close < 0 || close >= end) return null;
  const url = text.slice(i + 1, close);
  return ALLOWED_URL.test(url) ? { html: linkHtml(url, escapeTelegramHtml(url)), end: close + 1 } : null;
}

/**
 * `[text](url)` and `[text](url "title")`. A link to a refused URL, or a link inside link text
 * (`links` false), stays as its source text, escaped.
 */
function link(inline: Inline, i: number, end: number, links: boolean, depth: number): Piece | null {
  const { text } = inline;
  const label = closingBracket(text, i, end);
  if (label === null || text.charAt(label + 1) !== '(') return null;
  const target = linkTarget(text, label + 2, end);
  if (!target) return null;
  if (!links || !ALLOWED_URL.test(target.url) || depth >= MAX_NESTING) {
    return { html: escapeTelegramHtml(text.slice(i, target.end)), end: target.end };
  }
  const labelHtml =
    label > i + 1 ? scan(inline, i + 1, label, false, null, depth + 1).html : escapeTelegramHtml(target.url);
  return { html: linkHtml(target.url, labelHtml), end: target.end };
}

const URL_START = /(?:https?:\/\/|tg:\/\/|mailto:)/iy;
/**
 * A bare URL is plain text (Telegram links it itself), read whole so that the `_` and `*` in
 * it are never emphasis.
 */
function bareUrl(text: string, i: number, end: number): Piece | null {
  if (!'hHmMtT'.includes(text.charAt(i))) return null;
  if (i > 0 && /[\p{L}\p{N}]/u.test(text.charAt(i - 1))) return null;
  URL_START.lastIndex = i;
  if (!URL_START.test(text)) return null;
  const schemeEnd = URL_START.lastIndex;
  let j = schemeEnd;
  while (j < end && !/\s/.test(text.charAt(j)) && text.charAt(j) !== '<') j++;
  j = urlEnd(text, i, j);
  return j > schemeEnd ? { html: escapeTelegramHtml(text.slice(i, j)), end: j } : null;
}

const TAGS: Record<string, string> = { '*2': 'b', _2: 'b', '*1': 'i', _1: 'i', '~2': 's' };

/** `**b**`, `__b__`, `*i*`, `_i_`, `~~s~~`: a tag when a closer is found, else null (literal). */
function emphasisAt(inline: Inline, i: number, end: number, links: boolean, depth: number): Piece | null {
  const { text } = inline;
  const char = text.charAt(i);
  if ((char !== '*' && char !== '_' && char !== '~') || depth >= MAX_NESTING) return null;
  const run = delimiterRun(text, i);
  if (!run.canOpen || (inline.lastCloser.get(char) ?? -1) <= i) return null;
  // Strong before emphasis, so `***x***` is bold around italic.
  for (const size of char === '~' ? [2] : [2, 1]) {
    if (char === '~' && (run.start !== i || run.end - run.start !== 2)) return null;
    if (Math.min(run.end, end) - i < size) continue;
    const inner = scan(inline, i + size, end, links, { char, size }, depth + 1);
    if (inner.stop !== null) {
      const tag = TAGS[char + size]!;
      return { html: `<${tag}>${inner.html}</${tag}>`, end: inner.stop + size };
    }
  }
  return null;
}

function closesAt(text: string, i: number, from: number, end: number, closer: Closer): boolean {
  if (text.charAt(i) !== closer.char || i === from) return false;
  const run = delimiterRun(text, i);
  if (!run.canClose || Math.min(run.end, end) - i < closer.size) return false;
  return closer.char !== '~' || (run.start === i && run.end - run.start === 2);
}
