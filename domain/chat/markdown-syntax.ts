// The CommonMark pieces both chat dialects read markdown with (Telegram's HTML, Slack's mrkdwn):
// block patterns, link targets, delimiter runs and bare-URL ends. Each renderer keeps its output.

export const QUOTE_LINE = /^[ \t]{0,3}>/;

export const QUOTE_MARKERS = /^(?:[ \t]{0,3}>[ \t]?)+/;

/** A GFM table's delimiter row, trimmed: `|---|:--:|`, `--- | ---`. */
export const TABLE_RULE = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?$/;

export const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*))?$/;

export const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

export const BULLET_ITEM = /^([ \t]*)[-*+][ \t]+(\S.*)$/;

export const NUMBERED_ITEM = /^([ \t]*)(\d{1,9}[.)])[ \t]+(\S.*)$/;

export const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;

/** GFM: these end a sentence, not a URL. */
const URL_TRAILING = `.,;:!?'"*_~`;

export interface Closer {
  char: string;
  size: number;
}

/** Deeper emphasis is kept as text: it bounds the recursion on hostile input. */
export const MAX_NESTING = 16;

export function runLength(text: string, i: number, end: number, char: string): number {
  let j = i;
  while (j < end && text.charAt(j) === char) j++;
  return j - i;
}

export function closingBracket(text: string, i: number, end: number): number | null {
  let depth = 0;
  for (let j = i; j < end; j++) {
    const char = text.charAt(j);
    if (char === '\\') j++;
    else if (char === '[') depth++;
    else if (char === ']' && --depth === 0) return j;
  }
  return null;
}

/** The `url "title")` after `](`: the URL may hold balanced parentheses, as Wikipedia's do. */
export function linkTarget(text: string, from: number, end: number): { url: string; end: number } | null {
  let j = skipSpaces(text, from, end);
  let url: string;
  if (text.charAt(j) === '<') {
    const close = text.indexOf('>', j);
    if (close < 0 || close >= end) return null;
    url = text.slice(j + 1, close);
    j = close + 1;
  } else {
    const start = j;
    for (let depth = 0; j < end && !/\s/.test(text.charAt(j)); j++) {
      const char = text.charAt(j);
      if (char === '\\') j++;
      else if (char === '(') depth++;
      else if (char === ')' && depth-- === 0) break;
    }
    j = Math.min(j, end);
    url = text.slice(start, j);
  }
  j = skipSpaces(text, j, end);
  const quote = text.charAt(j);
  if (quote === '"' || quote === "'" || quote === '(') {
    const close = text.indexOf(quote === '(' ? ')' : quote, j + 1);
    if (close < 0 || close >= end) return null;
    j = skipSpaces(text, close + 1, end);
  }
  return text.charAt(j) === ')' && j < end ? { url, end: j + 1 } : null;
}

function skipSpaces(text: string, from: number, end: number): number {
  let j = from;
  while (j < end && (text.charAt(j) === ' ' || text.charAt(j) === '\t')) j++;
  return j;
}

/** Drops trailing punctuation, and a closing parenthesis the URL did not open. */
export function urlEnd(text: string, start: number, end: number): number {
  let open = 0;
  let closed = 0;
  for (let j = start; j < end; j++) {
    if (text.charAt(j) === '(') open++;
    else if (text.charAt(j) === ')') closed++;
  }
  let j = end;
  for (;;) {
    const last = text.charAt(j - 1);
    if (URL_TRAILING.includes(last)) j--;
    else if (last === ')' && closed > open) {
      closed--;
      j--;
    } else return j;
  }
}

export interface DelimiterRun {
  char: string;
  start: number;
  end: number;
  canOpen: boolean;
  canClose: boolean;
}

/**
 * CommonMark's flanking rules, on the whole run of the character around `i`: an opener is
 * followed by text, a closer preceded by it, and `_` does not open or close inside a word
 * (snake_case_names stay as they are).
 */
export function delimiterRun(text: string, i: number): DelimiterRun {
  const char = text.charAt(i);
  let start = i;
  while (start > 0 && text.charAt(start - 1) === char) start--;
  let end = i;
  while (end < text.length && text.charAt(end) === char) end++;
  // The line's edges count as whitespace.
  const before = start > 0 ? text.charAt(start - 1) : ' ';
  const after = end < text.length ? text.charAt(end) : ' ';
  const left = !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
  const right = !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
  if (char === '_') {
    return {
      char,
      start,
      end,
      canOpen: left && (!right || isPunctuation(before)),
      canClose: right && (!left || isPunctuation(after)),
    };
  }
  return { char, start, end, canOpen: left, canClose: right };
}

function isSpace(char: string): boolean {
  return /\s/.test(char);
}

function isPunctuation(char: string): boolean {
  return /[\p{P}\p{S}]/u.test(char);
}
