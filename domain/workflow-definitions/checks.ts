/**
 * Small helpers validation messages are built from: an error list with a cap, descriptions of
 * wrong values that never print the value whole, and the unknown-key check.
 */

export const MAX_ERRORS = 100;

/** Collects messages in the order found, without repeats; keeps the first MAX_ERRORS. */
export class ErrorList {
  private readonly messages: string[] = [];
  private readonly seen = new Set<string>();
  private dropped = 0;

  add(message: string): void {
    if (this.seen.has(message)) return;
    this.seen.add(message);
    if (this.messages.length < MAX_ERRORS - 1) this.messages.push(message);
    else this.dropped += 1;
  }

  get count(): number {
    return this.messages.length + this.dropped;
  }

  list(): string[] {
    if (this.dropped === 0) return [...this.messages];
    if (this.dropped === 1) return [...this.messages, ...[...this.seen].slice(-1)];
    return [...this.messages, `... and ${this.dropped} more errors`];
  }
}

export type Mapping = Record<string, unknown>;

export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only, so `constructor` or `__proto__` never read through the prototype. */
export function field(mapping: Mapping, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(mapping, key) ? mapping[key] : undefined;
}

export function has(mapping: Mapping, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(mapping, key);
}

/** Text for a message, shortened past 60 characters. */
export function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** A string for a message: JSON-quoted, shortened past 60 characters. */
export function quote(text: string): string {
  return JSON.stringify(shorten(text));
}

/** "a string", "a number", "a list", "a mapping", "null", "true". */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return String(value);
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

function squashed(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 40 || b.length > 40) return 3;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + cost));
    }
    row = next;
  }
  return row[b.length]!;
}

/** The allowed key a misspelt one most likely meant, if any is close. */
export function suggestKey(key: string, allowed: readonly string[]): string | undefined {
  return (
    allowed.find((candidate) => squashed(candidate) === squashed(key)) ??
    allowed.find((candidate) => editDistance(candidate, key) <= 2)
  );
}

/** Reports each key that is not allowed, with a guess at the one meant. */
export function checkKeys(
  mapping: Mapping,
  allowed: readonly string[],
  prefix: string,
  errors: ErrorList,
): void {
  for (const key of Object.keys(mapping)) {
    if (allowed.includes(key)) continue;
    const guess = suggestKey(key, allowed);
    errors.add(`${prefix}unknown key ${quote(key)}${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
}
