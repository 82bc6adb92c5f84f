/**
 * The `loop` node (Archon's form, with Cairn's condition): an assistant prompt (or command) run
 * again until its completion signal (`until`), a bash check (`until_bash`) or a condition in the
 * `when` language (`until_condition`) says it is done, at most `max_iterations` (1 to 50) times.
 */
import { parseCondition } from './conditions.js';
import { checkKeys, describeType, field, has, isMapping, quote, type ErrorList } from './checks.js';
import { nonBlankString } from './validate-fields.js';
import { COMMAND_NAME_PATTERN, MAX_LOOP_ITERATIONS, type LoopSettings } from './types.js';

const LOOP_KEYS = [
  'prompt',
  'command',
  'until',
  'until_bash',
  'until_condition',
  'max_iterations',
  'fresh_context',
] as const;

/** Checks a loop mapping; answers its normalized settings when it has no error. */
export function checkLoop(value: unknown, at: string, errors: ErrorList): LoopSettings | undefined {
  if (!isMapping(value)) {
    errors.add(
      `${at}loop: must be a mapping with a prompt, a limit and an end condition, not ${describeType(value)}`,
    );
    return undefined;
  }
  const before = errors.count;
  checkKeys(value, LOOP_KEYS, `${at}loop: `, errors);
  const text = (key: string) =>
    has(value, key) ? nonBlankString(field(value, key), `${at}loop.${key}: `, errors) : undefined;
  const prompt = text('prompt');
  const command = text('command');
  if (has(value, 'prompt') === has(value, 'command'))
    errors.add(`${at}loop: needs exactly one of prompt or command`);
  if (command !== undefined && !COMMAND_NAME_PATTERN.test(command))
    errors.add(
      `${at}loop.command: ${quote(command)} is not a command name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")`,
    );
  const until = text('until');
  const untilBash = text('until_bash');
  let untilCondition: LoopSettings['untilCondition'];
  if (has(value, 'until_condition')) {
    const source = field(value, 'until_condition');
    if (typeof source !== 'string')
      errors.add(`${at}loop.until_condition: must be a string, not ${describeType(source)}`);
    else {
      const parsed = parseCondition(source);
      if (parsed.ok) untilCondition = { condition: parsed.condition, source };
      else errors.add(`${at}loop.until_condition: ${parsed.error.message}`);
    }
  }
  if (!['until', 'until_bash', 'until_condition'].some((key) => has(value, key)))
    errors.add(
      `${at}loop: needs an end condition: until (a completion signal), until_bash or until_condition`,
    );
  const maxIterations = field(value, 'max_iterations');
  if (maxIterations === undefined)
    errors.add(`${at}loop.max_iterations: required (a limit from 1 to ${MAX_LOOP_ITERATIONS})`);
  else if (
    typeof maxIterations !== 'number' ||
    !Number.isInteger(maxIterations) ||
    maxIterations < 1 ||
    maxIterations > MAX_LOOP_ITERATIONS
  )
    errors.add(
      `${at}loop.max_iterations: must be a whole number from 1 to ${MAX_LOOP_ITERATIONS}, not ${typeof maxIterations === 'number' ? maxIterations : describeType(maxIterations)}`,
    );
  const fresh = field(value, 'fresh_context') ?? false;
  if (typeof fresh !== 'boolean')
    errors.add(`${at}loop.fresh_context: must be true or false, not ${describeType(fresh)}`);
  if (errors.count !== before) return undefined;
  return {
    ...(prompt !== undefined && { prompt }),
    ...(command !== undefined && { command }),
    ...(until !== undefined && { until }),
    ...(untilBash !== undefined && { untilBash }),
    ...(untilCondition && { untilCondition }),
    maxIterations: maxIterations as number,
    freshContext: fresh === true,
  };
}
