/**
 * Splits an assistant's markdown answer into messages a chat platform will take. Every door that
 * relays answers (Telegram now, Discord and Slack later) calls it with its own limit. A part never
 * ends inside a fenced code block without closing it, and the next part reopens it with the same
 * fence and language, so each message renders as code on its own.
 */

/** The most text one message may carry, in characters (JS string length). */
export const PLATFORM_TEXT_LIMITS = {
  // Telegram Bot API, sendMessage: `text` is "1-4096 characters after entities parsing".
  telegram: 4096,
  // Discord API, Create Message: `content` is "the message contents (up to 2000 characters)".
  discord: 2000,
  // Slack Block Kit, section block: `text` has a "maximum length ... of 3000 characters".
  slack: 3000,
} as const;

/** A fenced code block's opening line, read as CommonMark reads it. */
export interface Fence {
  /** The opening line as written, trailing whitespace dropped: what reopens the block. */
  opening: string;
  /** What closes it: the opening's indentation and fence characters. */
  closing: string;
  indent: string;
  /** The fence characters: ``` or ~~~, or a longer run of either. */
  marker: string;
  /** What follows the fence, e.g. `ts` or `python title="x.py"`. */
  info: string;
}

const FENCE_OPENING = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/**
 * The fence a line opens, if it opens one. Any indentation is accepted: assistants indent code
 * blocks inside list items.
 */
export function fenceOpening(line: string): Fence | null {
  const match = FENCE_OPENING.exec(line);
  if (!match) return null;
  const [, indent = '', marker = '', rest = ''] = match;
  // CommonMark: a backtick fence's info string has no backtick (```a``` is inline code).
  if (marker.startsWith('`') && rest.includes('`')) return null;
  return { opening: line.trimEnd(), closing: indent + marker, indent, marker, info: rest.trim() };
}

/** Whether a line closes the block `fence` opened: the same character, at least as many. */
export function closesFence(line: string, fence: Fence): boolean {
  const marker = FENCE_CLOSING.exec(line)?.[1];
  return marker !== undefined && marker[0] === fence.marker[0] && marker.length >= fence.marker.length;
}

/** A fenced code block, by positions in the text. */
interface CodeBlock {
  fence: Fence;
  /** The opening line's first character. */
  start: number;
  /** The first character after the opening line. */
  contentStart: number;
  /** The content's first and (one past) last non-whitespace characters. */
  contentFirst: number;
  contentEnd: number;
  /** The closing line's first character; the text's end when the block is never closed. */
  closeStart: number;
  /** One past the closing line's last character (its newline excluded). */
  end: number;
}

interface Splitter {
  text: string;
  limit: number;
  /** The code blocks whose fences fit in a part with room to spare, in order. */
  blocks: CodeBlock[];
}

/** A chosen cut: the part is `prefix + text[pos, body) + suffix`; the next part starts after `end`. */
interface Cut {
  end: number;
  body: number;
  suffix: string;
}

/**
 * Splits `markdown` into parts of at most `limit` characters, breaking at a blank line if one
 * is in the second half of the room, else a line end, else a space, else anywhere (earlier
 * breaks of the same kinds only when none is that late). Parts are trimmed of trailing
 * whitespace and never empty; only whitespace is lost between them.
 */
export function splitMessage(markdown: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`splitMessage: limit must be a positive integer, got ${limit}`);
  }
  const text = markdown.replace(/\r\n?/g, '\n');
  // A block whose fences would take more than half the room is split as plain text: closing
  // and reopening it would leave too little for its content.
  const blocks = findCodeBlocks(text).filter((block) => fenceCost(block.fence) <= limit / 2);
  const splitter: Splitter = { text, limit, blocks };
  const parts: string[] = [];
  for (let pos = skipBreak(text, 0); pos < text.length;) {
    const prefix = reopeningAt(splitter, pos);
    const cut = chooseCut(splitter, pos, prefix);
    if (cut.body > pos) parts.push(prefix + text.slice(pos, cut.body) + cut.suffix);
    pos = skipBreak(text, cut.end);
  }
  return parts;
}

/**
 * Splits so that every part fits once rendered in the platform's dialect, where escaping can make
 * a part longer than its markdown (`&` becomes `&amp;` in Slack): a part that grows past the limit
 * is split again, with the limit shrunk by how much it grew.
 */
export function splitRendered(markdown: string, limit: number, render: (part: string) => string): string[] {
  return splitMessage(markdown, limit).flatMap((part) => fitRendered(part, limit, render));
}

function fitRendered(part: string, limit: number, render: (part: string) => string): string[] {
  const rendered = render(part).length;
  if (rendered <= limit) return [part];
  const smaller = Math.min(part.length - 1, Math.floor((limit * part.length) / rendered));
  if (smaller < 1) return [part];
  return splitMessage(part, smaller).flatMap((piece) => fitRendered(piece, limit, render));
}

/** What closing a block and reopening it in the next part adds. */
function fenceCost(fence: Fence): number {
  return fence.opening.length + 1 + 1 + fence.closing.length;
}

function findCodeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { fence: Fence; start: number; contentStart: number } | null = null;
  for (let lineStart = 0; lineStart <= text.length;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (open && closesFence(line, open.fence)) {
      blocks.push(codeBlock(text, open, lineStart, lineEnd));
      open = null;
    } else if (!open) {
      const fence = fenceOpening(line);
      if (fence) open = { fence, start: lineStart, contentStart: Math.min(lineEnd + 1, text.length) };
    }
    lineStart = lineEnd + 1;
  }
  if (open) blocks.push(codeBlock(text, open, text.length, text.length));
  return blocks;
}

function codeBlock(
  text: string,
  open: { fence: Fence; start: number; contentStart: number },
  closeStart: number,
  end: number,
): CodeBlock {
  let contentFirst = open.contentStart;
  while (contentFirst < closeStart && isWhitespace(text.charAt(contentFirst))) contentFirst++;
  const contentEnd = Math.max(contentFirst, trimmedEnd(text, open.contentStart, closeStart));
  return { ...open, contentFirst, contentEnd, closeStart, end };
}

/** The block that starts before `pos` and ends after it. */
function blockAround(blocks: readonly CodeBlock[], pos: number): CodeBlock | undefined {
  let low = 0;
  let high = blocks.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const block = blocks[middle]!;
    if (pos <= block.start) high = middle - 1;
    else if (pos >= block.end) low = middle + 1;
    else return block;
  }
  return undefined;
}

/** The fence line a part starting at `pos` opens with, when `pos` is inside a block's content. */
function reopeningAt(splitter: Splitter, pos: number): string {
  const block = blockAround(splitter.blocks, pos);
  return block && block.contentStart <= pos && pos < block.closeStart ? `${block.fence.opening}\n` : '';
}

type BreakTest = (text: string, c: number) => boolean;

const isParagraphBreak: BreakTest = (text, c) => {
  if (text.charAt(c) !== '\n') return false;
  let next = c + 1;
  while (text.charAt(next) === ' ' || text.charAt(next) === '\t') next++;
  return text.charAt(next) === '\n';
};
const isLineEnd: BreakTest = (text, c) => text.charAt(c) === '\n';
const isSpace: BreakTest = (text, c) => text.charAt(c) === ' ' || text.charAt(c) === '\t';
/** Anywhere but between the two halves of a surrogate pair (an emoji cut in two is garbage). */
const isHardBreak: BreakTest = (text, c) => !isHighSurrogate(text.charCodeAt(c - 1));

const PREFERRED_BREAKS: readonly BreakTest[] = [isParagraphBreak, isLineEnd, isSpace];

function chooseCut(splitter: Splitter, pos: number, prefix: string): Cut {
  const { text, limit } = splitter;
  const whole = measure(splitter, pos, prefix, text.length, 1);
  if (whole) return whole;
  const last = Math.min(text.length - 1, pos + limit);
  for (const minSize of [Math.floor(limit / 2), 1]) {
    for (const isBreak of PREFERRED_BREAKS) {
      const cut = lastFittingCut(splitter, pos, prefix, last, minSize, isBreak);
      if (cut) return cut;
    }
  }
  return lastFittingCut(splitter, pos, prefix, last, 1, isHardBreak) ?? forcedCut(splitter, pos, prefix);
}

function lastFittingCut(
  splitter: Splitter,
  pos: number,
  prefix: string,
  last: number,
  minSize: number,
  isBreak: BreakTest,
): Cut | null {
  for (let c = last; c >= pos + minSize; c--) {
    if (!isBreak(splitter.text, c)) continue;
    const cut = measure(splitter, pos, prefix, c, minSize);
    if (cut) return cut;
  }
  return null;
}

/**
 * The cut at `c` if its part fits: moved first so that no part holds a block's fence without any
 * of its content, and the fence lines the part needs are counted.
 */
function measure(splitter: Splitter, pos: number, prefix: string, c: number, minSize: number): Cut | null {
  const end = keepBlockContent(splitter.blocks, c);
  if (end < pos + minSize || startsWithFakeFence(splitter.text, end)) return null;
  const body = trimmedEnd(splitter.text, pos, end);
  if (body === pos) return null;
  const open = blockAround(splitter.blocks, end);
  const suffix = open ? `\n${open.fence.closing}` : '';
  return prefix.length + (body - pos) + suffix.length <= splitter.limit ? { end, body, suffix } : null;
}

/**
 * A cut before a block's first content moves before its opening line; a cut after its last
 * content moves after its closing line. Otherwise a part would end with an empty block, or the
 * next would start with a lone closing fence (which opens a new block).
 */
function keepBlockContent(blocks: readonly CodeBlock[], c: number): number {
  const block = blockAround(blocks, c);
  if (!block) return c;
  if (c <= block.contentFirst) return block.start;
  if (c >= block.contentEnd) return block.end;
  return c;
}

/**
 * The last resort, reached only when whitespace or a closing fence too long for the room makes
 * every tidy cut impossible: the longest hard cut that fits. It still closes an open block, so
 * the part's fences balance. It always finds one: a block's fences take at most half the room.
 */
function forcedCut(splitter: Splitter, pos: number, prefix: string): Cut {
  const { text, limit } = splitter;
  for (let end = Math.min(text.length, pos + limit); end > pos; end--) {
    if (!isHardBreak(text, end) && end > pos + 1) continue;
    const body = trimmedEnd(text, pos, end);
    if (body === pos) return { end, body, suffix: '' };
    const open = blockAround(splitter.blocks, end);
    const suffix = open ? `\n${open.fence.closing}` : '';
    if (prefix.length + (body - pos) + suffix.length <= limit) return { end, body, suffix };
  }
  return { end: pos + 1, body: trimmedEnd(text, pos, pos + 1), suffix: '' };
}

/**
 * Whether the part after a cut mid-line would start with ``` or ~~~: at a line's start it
 * would read as a fence and turn the rest of the part into code (or end a reopened block).
 */
function startsWithFakeFence(text: string, end: number): boolean {
  const next = skipBreak(text, end);
  const midLine = next > 0 && text.charAt(next - 1) !== '\n';
  return midLine && (text.startsWith('```', next) || text.startsWith('~~~', next));
}

/** Where the next part starts: past the blank lines after a cut, and past the spaces of a cut mid-line. */
function skipBreak(text: string, from: number): number {
  let pos = from;
  for (;;) {
    let next = pos;
    while (text.charAt(next) === ' ' || text.charAt(next) === '\t') next++;
    if (text.charAt(next) === '\n') {
      pos = next + 1;
      continue;
    }
    // A line's indentation is kept (it matters in code); a cut mid-line drops its spaces.
    const midLine = pos > 0 && text.charAt(pos - 1) !== '\n';
    return next >= text.length || midLine ? next : pos;
  }
}

/** One past the last non-whitespace character of `text[from, to)`, or `from` if there is none. */
function trimmedEnd(text: string, from: number, to: number): number {
  let end = to;
  while (end > from && isWhitespace(text.charAt(end - 1))) end--;
  return end;
}

/** The whitespace String#trimEnd drops. */
function isWhitespace(char: string): boolean {
  return /\s/.test(char);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
