import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

// Checks a node's output against its `output_format`. Same options as the definition check
// (activities/workflow-definitions/output-format-check.ts), so a schema accepted there compiles
// here; formats are checked as well, since a node's output is where they matter.
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: true, logger: false });
addFormats.default(ajv);

/** At most this many schema violations are named in a node's error. */
const MAX_LISTED_ERRORS = 10;

export type OutputCheck = { ok: true; value: unknown } | { ok: false; error: string };

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  const extra =
    error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string'
      ? ` (${params.additionalProperty})`
      : error.keyword === 'enum' && Array.isArray(params.allowedValues)
        ? ` (${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')})`
        : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

/** Why `value` does not satisfy `schema`, or undefined when it does. */
export function outputSchemaViolation(schema: Record<string, unknown>, value: unknown): string | undefined {
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return `output_format is not a valid JSON Schema: ${(error as Error).message.split('\n')[0]}`;
  }
  try {
    if (validate(value)) return undefined;
    const errors = validate.errors ?? [];
    const listed = errors.slice(0, MAX_LISTED_ERRORS).map(describeError);
    if (errors.length > listed.length) listed.push(`and ${errors.length - listed.length} more`);
    return `output does not match output_format: ${listed.join('; ')}`;
  } finally {
    // Compiled schemas are cached by the schema object; each activity gets a fresh one.
    ajv.removeSchema(schema);
  }
}

function checked(schema: Record<string, unknown>, value: unknown): OutputCheck {
  const violation = outputSchemaViolation(schema, value);
  return violation === undefined ? { ok: true, value } : { ok: false, error: violation };
}

function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A script's output must be JSON as a whole (surrounding whitespace aside). */
export function checkScriptOutput(schema: Record<string, unknown>, stdout: string): OutputCheck {
  const text = stdout.trim();
  if (text === '') return { ok: false, error: 'output is empty, but output_format expects JSON' };
  const parsed = parseJson(text);
  if ('error' in parsed) return { ok: false, error: `output is not valid JSON: ${parsed.error}` };
  return checked(schema, parsed.value);
}

/** Bounds the bracket scan of a long answer full of unbalanced brackets. */
const MAX_SPAN_STARTS = 200;

const FENCED_BLOCK = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;

/** The first balanced {...} or [...] span starting at `start`, ignoring brackets inside strings. */
function balancedSpan(text: string, start: number): string | undefined {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') stack.push(char === '{' ? '}' : ']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return undefined;
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/**
 * JSON candidates in an assistant's answer, most deliberate first: the whole text, then fenced
 * blocks from the last (```json ones before untagged ones), then each {...} / [...] span.
 */
function jsonCandidates(text: string): string[] {
  const candidates = [text.trim()];
  const fenced = [...text.matchAll(FENCED_BLOCK)].reverse();
  const tagged = fenced.filter((match) => match[1]?.toLowerCase() === 'json');
  const others = fenced.filter((match) => match[1]?.toLowerCase() !== 'json');
  for (const match of [...tagged, ...others]) candidates.push((match[2] ?? '').trim());
  let starts = 0;
  for (let i = 0; i < text.length && starts < MAX_SPAN_STARTS; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    starts++;
    const span = balancedSpan(text, i);
    if (span !== undefined) {
      candidates.push(span);
      i += span.length - 1;
    }
  }
  return candidates.filter((candidate) => candidate !== '');
}

/**
 * An assistant's answer must hold JSON satisfying the schema: the first candidate (see
 * jsonCandidates) that parses and is valid wins; otherwise the error names the first that parsed.
 */
export function checkAssistantOutput(schema: Record<string, unknown>, text: string): OutputCheck {
  let firstFailure: string | undefined;
  for (const candidate of jsonCandidates(text)) {
    const parsed = parseJson(candidate);
    if (!('value' in parsed)) continue;
    const result = checked(schema, parsed.value);
    if (result.ok) return result;
    firstFailure ??= result.error;
  }
  return {
    ok: false,
    error: firstFailure ?? 'the answer holds no JSON, but output_format expects JSON',
  };
}
