/**
 * `for_each` and `concurrency`: a prompt, command, bash or script node run once per element of a
 * list that an upstream node output. The reference's target is checked with the other references
 * (validate-graph.ts); here, its form and the bounds.
 */
import { describeType, field, has, quote, type ErrorList, type Mapping } from './checks.js';
import { DEFAULT_FAN_OUT_CONCURRENCY, MAX_FAN_OUT_CONCURRENCY, type FanOut, type NodeKind } from './types.js';

const FAN_OUT_KINDS: readonly NodeKind[] = ['prompt', 'command', 'bash', 'script'];
/** The whole value is one reference: `$<id>.output`, then fields or list indexes. */
const LIST_REFERENCE = /^\$([A-Za-z][A-Za-z0-9_-]*)\.output((?:\.[A-Za-z0-9_]+)*)$/;

export const FAN_OUT_KEYS = ['for_each', 'concurrency'] as const;

/** Checks a node's fan-out fields; answers them normalized when present and without error. */
export function checkFanOut(
  raw: Mapping,
  kind: NodeKind | undefined,
  at: string,
  errors: ErrorList,
): FanOut | undefined {
  if (!has(raw, 'for_each')) {
    if (has(raw, 'concurrency')) errors.add(`${at}concurrency: only a node with for_each has a concurrency`);
    return undefined;
  }
  const before = errors.count;
  if (kind !== undefined && !FAN_OUT_KINDS.includes(kind))
    errors.add(
      `${at}for_each: only prompt, command, bash and script nodes run for each element, not ${kind} nodes`,
    );
  const value = field(raw, 'for_each');
  const match = typeof value === 'string' ? LIST_REFERENCE.exec(value.trim()) : null;
  if (typeof value !== 'string')
    errors.add(
      `${at}for_each: must be a reference to a list, such as "$plan.output.files", not ${describeType(value)}`,
    );
  else if (!match)
    errors.add(
      `${at}for_each: ${quote(value)} is not a reference to an upstream output, such as "$plan.output.files"`,
    );
  let concurrency = DEFAULT_FAN_OUT_CONCURRENCY;
  if (has(raw, 'concurrency')) {
    const given = field(raw, 'concurrency');
    if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > MAX_FAN_OUT_CONCURRENCY)
      errors.add(
        `${at}concurrency: must be a whole number from 1 to ${MAX_FAN_OUT_CONCURRENCY}, not ${typeof given === 'number' ? given : describeType(given)}`,
      );
    else concurrency = given;
  }
  if (errors.count !== before || !match) return undefined;
  const path = match[2] ? match[2].slice(1).split('.') : [];
  return { source: (value as string).trim(), nodeId: match[1]!, path, concurrency };
}
