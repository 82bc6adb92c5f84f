/**
 * The `when` language, part one: the syntax tree and the tokenizer. Offsets count UTF-16 code
 * units from 0; messages say "character N", counting from 1.
 */

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains';
export type LiteralValue = string | number | boolean | null;

export type Condition =
  | { type: 'output'; nodeId: string; path: string[]; offset: number }
  | { type: 'literal'; value: LiteralValue; offset: number }
  | { type: 'not'; operand: Condition; offset: number }
  | { type: 'and' | 'or'; left: Condition; right: Condition; offset: number }
  | { type: 'compare'; operator: CompareOperator; left: Condition; right: Condition; offset: number };

export interface ConditionSyntaxError {
  /** Plain words, ending with "at character N". */
  message: string;
  /** 0-based offset into the condition text. */
  offset: number;
}

export type Token =
  | { type: 'output'; nodeId: string; path: string[]; offset: number; text: string }
  | { type: 'literal'; value: LiteralValue; offset: number; text: string }
  | { type: 'compare'; operator: CompareOperator; offset: number; text: string }
  | { type: 'not' | 'and' | 'or' | '(' | ')' | 'end'; offset: number; text: string };

export class ConditionSyntaxException extends Error {
  /** Reads "<problem> at character N; <hint>". */
  constructor(
    problem: string,
    readonly offset: number,
    hint?: string,
  ) {
    super(`${problem} at character ${offset + 1}${hint ? `; ${hint}` : ''}`);
  }
}

/** `$<id>.output` and its fields, as in prompt text. */
const OUTPUT_REFERENCE = /\$([A-Za-z][A-Za-z0-9_-]*)\.output(?![A-Za-z0-9_])((?:\.[A-Za-z0-9_]+)*)/y;
const DOLLAR_WORD = /\$[A-Za-z0-9_.-]*/y;
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const SYMBOLS: [string, Token['type'], CompareOperator?][] = [
  ['&&', 'and'],
  ['||', 'or'],
  ['==', 'compare', '=='],
  ['!=', 'compare', '!='],
  ['<=', 'compare', '<='],
  ['>=', 'compare', '>='],
  ['<', 'compare', '<'],
  ['>', 'compare', '>'],
  ['!', 'not'],
  ['(', '('],
  [')', ')'],
];
const KEYWORDS: Record<string, Token> = {
  true: { type: 'literal', value: true, offset: 0, text: 'true' },
  false: { type: 'literal', value: false, offset: 0, text: 'false' },
  null: { type: 'literal', value: null, offset: 0, text: 'null' },
  not: { type: 'not', offset: 0, text: 'not' },
  and: { type: 'and', offset: 0, text: 'and' },
  or: { type: 'or', offset: 0, text: 'or' },
  contains: { type: 'compare', operator: 'contains', offset: 0, text: 'contains' },
};
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

function sticky(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

function readString(text: string, start: number): { value: string; end: number } {
  const quote = text[start]!;
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === quote) return { value, end: i + 1 };
    if (ch === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      value += ESCAPES[next] ?? next;
      i += 2;
    } else {
      value += ch;
      i += 1;
    }
  }
  throw new ConditionSyntaxException('unterminated string', start, `no closing ${quote}`);
}

function shown(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** Splits a condition into tokens, ending with an `end` token. Throws ConditionSyntaxException. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i += 1;
      continue;
    }
    const symbol = SYMBOLS.find(([s]) => text.startsWith(s, i));
    if (symbol) {
      const [s, type, operator] = symbol;
      tokens.push(
        type === 'compare'
          ? { type, operator: operator!, offset: i, text: s }
          : { type: type as 'and', offset: i, text: s },
      );
      i += s.length;
      continue;
    }
    if (ch === '=' || ch === '&' || ch === '|') {
      throw new ConditionSyntaxException(`"${ch}" alone is not an operator`, i, `write "${ch}${ch}"`);
    }
    if (ch === "'" || ch === '"') {
      const { value, end } = readString(text, i);
      tokens.push({ type: 'literal', value, offset: i, text: text.slice(i, end) });
      i = end;
      continue;
    }
    if (ch === '$') {
      const match = sticky(OUTPUT_REFERENCE, text, i);
      if (!match) {
        const word = sticky(DOLLAR_WORD, text, i)![0];
        throw new ConditionSyntaxException(
          `${shown(word)} is not a node output`,
          i,
          'conditions read $<id>.output or $<id>.output.<field>',
        );
      }
      const path = match[2] ? match[2].slice(1).split('.') : [];
      tokens.push({ type: 'output', nodeId: match[1]!, path, offset: i, text: match[0] });
      i += match[0].length;
      continue;
    }
    const number = sticky(NUMBER, text, i);
    if (number) {
      tokens.push({ type: 'literal', value: Number(number[0]), offset: i, text: number[0] });
      i += number[0].length;
      continue;
    }
    const word = sticky(WORD, text, i);
    if (word) {
      const keyword = Object.prototype.hasOwnProperty.call(KEYWORDS, word[0]) ? KEYWORDS[word[0]] : undefined;
      if (!keyword) {
        throw new ConditionSyntaxException(
          `unknown word ${shown(word[0])}`,
          i,
          'quote text, and write outputs as $<id>.output',
        );
      }
      tokens.push({ ...keyword, offset: i });
      i += word[0].length;
      continue;
    }
    throw new ConditionSyntaxException(`unexpected character ${shown(ch)}`, i);
  }
  tokens.push({ type: 'end', offset: text.length, text: '' });
  return tokens;
}
