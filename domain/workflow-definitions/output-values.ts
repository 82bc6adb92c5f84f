/**
 * How node outputs read as values: field lookup, text, truth, comparison. Shared by conditions
 * and variable substitution so the two agree.
 */

const NUMERIC_TEXT = /^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const FALSE_TEXTS = new Set(['', 'false', 'null']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOwn(value: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

/** A text output that holds a JSON object or list is read as that value when fields are asked for. */
function parsedIfJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return value;
  }
}

/**
 * `$<id>.output.<path>`: the node's output, then each field in turn (a list takes an index).
 * Undefined when the node has no output yet or a field is missing.
 */
export function resolveOutput(
  outputs: Record<string, unknown>,
  nodeId: string,
  path: readonly string[],
): unknown {
  if (!hasOwn(outputs, nodeId)) return undefined;
  let value = outputs[nodeId];
  for (const field of path) {
    value = parsedIfJson(value);
    if (Array.isArray(value) && /^[0-9]+$/.test(field)) value = value[Number(field)];
    else if (isRecord(value) && hasOwn(value, field)) value = value[field];
    else return undefined;
  }
  return value;
}

/** Text of a value: strings as they are, missing and null as empty text, the rest as JSON. */
export function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** A number, or a text that is one (surrounding white space ignored); otherwise undefined. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.length > 400) return undefined;
  const trimmed = value.trim();
  if (!NUMERIC_TEXT.test(trimmed)) return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : undefined;
}

/**
 * A value alone: false when missing, null, false, 0, an empty list or mapping, or a text that
 * (white space trimmed, any case) is empty, `false`, `null` or a number equal to 0.
 */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') {
    if (FALSE_TEXTS.has(value.trim().toLowerCase())) return false;
    return asNumber(value) !== 0;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** -1, 0 or 1: as numbers when both sides are numbers (or numeric text), otherwise as text. */
export function compareValues(left: unknown, right: unknown): number {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) return a < b ? -1 : a > b ? 1 : 0;
  const x = toText(left);
  const y = toText(right);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `contains`: a list holds an element equal to the value; otherwise text holds text. */
export function containsValue(container: unknown, value: unknown): boolean {
  if (Array.isArray(container)) return container.some((element) => compareValues(element, value) === 0);
  return toText(container).includes(toText(value));
}
