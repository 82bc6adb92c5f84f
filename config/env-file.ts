import { readFileSync } from 'node:fs';

// `export`? KEY = rest. Keys may hold dots and dashes, as other .env tools allow.
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;
const QUOTES = ['"', "'", '`'];
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/** Index of the closing quote in `body`, or -1. Only double quotes honour backslash escapes. */
function closingQuote(body: string, quote: string): number {
  for (let i = 0; i < body.length; i++) {
    if (quote === '"' && body[i] === '\\') i++;
    else if (body[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(body: string): string {
  return body.replace(/\\(.)/g, (whole, char: string) => ESCAPES[char] ?? whole);
}

/** A `#` starts a comment at the start of the value or after whitespace (`a#b` is a value). */
function unquoted(rest: string): string {
  return rest.replace(/(^|\s)#.*$/, '').trim();
}

/**
 * Parses .env text: KEY=VALUE, `export KEY=VALUE`, single/double/backtick quotes (double quotes
 * expand \n \r \t \" \\ and may span lines), `#` comments and blank lines. Malformed lines are
 * skipped. Returns a Map so a key like `__proto__` stays an ordinary key. Later duplicates win.
 */
export function parseEnvFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const match = ASSIGNMENT.exec(lines[i] ?? '');
    if (!match) continue;
    const key = match[1]!;
    const rest = match[2]!;
    const quote = rest[0] ?? '';
    if (!QUOTES.includes(quote)) {
      values.set(key, unquoted(rest));
      continue;
    }
    let body = rest.slice(1);
    let last = i;
    let end = closingQuote(body, quote);
    while (end === -1 && last + 1 < lines.length) {
      last++;
      body += `\n${lines[last]}`;
      end = closingQuote(body, quote);
    }
    const trailing = end === -1 ? '' : body.slice(end + 1).trim();
    // Unterminated quote, or text after the closing quote: malformed, skip only this line.
    if (end === -1 || (trailing !== '' && !trailing.startsWith('#'))) continue;
    const raw = body.slice(0, end);
    values.set(key, quote === '"' ? unescapeDouble(raw) : raw);
    i = last;
  }
  return values;
}

/** Reads and parses a .env file; undefined when it does not exist. Other errors are thrown. */
export function readEnvFile(file: string): Map<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  return parseEnvFile(text);
}
