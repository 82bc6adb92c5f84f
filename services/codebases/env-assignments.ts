/**
 * Finds which keys a dotenv-style file assigns a non-empty value to. Only key names leave this
 * module: values are looked at to judge emptiness and then dropped.
 *
 * The grammar follows what dotenv and Bun accept: `KEY=value`, `export KEY=value`, `KEY = value`,
 * `KEY: value`, single, double or backtick quotes (double and backtick may span lines), and `#`
 * comments on their own line or after whitespace in an unquoted value.
 */

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(?:=|:(?=\s|$))[ \t]*(.*)$/;
const QUOTES = new Set(['"', "'", '`']);

/** The unquoted value without its trailing comment; a value that starts with `#` is empty. */
function stripComment(raw: string): string {
  const match = /(^|\s)#/.exec(raw);
  return match ? raw.slice(0, match.index) : raw;
}

interface QuotedValue {
  filled: boolean;
  /** Index of the line holding the closing quote (or the last line read). */
  end: number;
}

/**
 * Reads a quoted value whose text after the opening quote is `rest`, on lines[start]. An unclosed
 * double or backtick quote runs on to later lines, as in dotenv; anything read counts, so a
 * malformed file errs towards being reported rather than passed.
 */
function readQuoted(lines: string[], start: number, quote: string, rest: string): QuotedValue {
  let collected = '';
  let text = rest;
  let line = start;
  for (;;) {
    const close = text.indexOf(quote);
    if (close >= 0) return { filled: (collected + text.slice(0, close)).trim() !== '', end: line };
    collected += text;
    if (quote === "'" || line + 1 >= lines.length) return { filled: collected.trim() !== '', end: line };
    line += 1;
    text = lines[line] ?? '';
  }
}

/** Names of the keys given a non-empty value anywhere in `text` (a later empty one does not undo it). */
export function keysWithValues(text: string): Set<string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const keys = new Set<string>();
  for (let index = 0; index < lines.length; index += 1) {
    const match = ASSIGNMENT.exec(lines[index] ?? '');
    if (!match) continue; // blank lines, comments, anything that is not an assignment
    const [, key = '', value = ''] = match;
    const first = value.charAt(0);
    let filled: boolean;
    if (QUOTES.has(first)) {
      const quoted = readQuoted(lines, index, first, value.slice(1));
      filled = quoted.filled;
      index = quoted.end;
    } else {
      filled = stripComment(value).trim() !== '';
    }
    if (filled) keys.add(key);
  }
  return keys;
}
