/**
 * Checks of single node fields whose shape is more than one value: retry, approval, depends_on;
 * plus the small value checks the node validator shares.
 */
import { checkDuration, RETRY_DELAY_BOUNDS } from './durations.js';
import { checkKeys, describeType, field, has, isMapping, quote, type ErrorList } from './checks.js';
import {
  DEFAULT_RETRY_DELAY_MS,
  MAX_RETRY_ATTEMPTS,
  PROVIDERS,
  type Provider,
  type RetryPolicy,
} from './types.js';

const RETRY_KEYS = ['attempts', 'delay'] as const;
const APPROVAL_KEYS = ['message', 'capture_response', 'on_reject'] as const;
const ON_REJECT_KEYS = ['prompt', 'max_attempts'] as const;
export const DEFAULT_REWORK_ATTEMPTS = 3;
export const MAX_REWORK_ATTEMPTS = 5;

export function nonBlankString(value: unknown, at: string, errors: ErrorList): string | undefined {
  if (typeof value !== 'string') errors.add(`${at}must be a string, not ${describeType(value)}`);
  else if (value.trim() === '') errors.add(`${at}must not be empty`);
  else return value;
  return undefined;
}

export function checkBoolean(value: unknown, at: string, errors: ErrorList): boolean | undefined {
  if (typeof value === 'boolean') return value;
  errors.add(`${at}must be true or false, not ${describeType(value)}`);
  return undefined;
}

/** A list of non-empty strings (with `nonEmpty`, at least one). */
export function stringList(
  value: unknown,
  at: string,
  errors: ErrorList,
  nonEmpty = false,
): string[] | undefined {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    errors.add(`${at}must be a list of non-empty strings, not ${describeType(value)}`);
    return undefined;
  }
  if (nonEmpty && value.length === 0) {
    errors.add(`${at}must list at least one name`);
    return undefined;
  }
  return value as string[];
}

export function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  at: string,
  errors: ErrorList,
) {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  const found = typeof value === 'string' ? quote(value) : describeType(value);
  errors.add(`${at}must be one of ${allowed.join(', ')}, not ${found}`);
  return undefined;
}

/** Assistants Archon's workflow files may name that Cairn does not run. */
const OTHER_PROVIDERS = ['opencode', 'pi', 'copilot'];

/** `claude` or `codex`; another assistant Archon knows is refused by name. */
export function checkProviderName(value: unknown, at: string, errors: ErrorList): Provider | undefined {
  if (typeof value === 'string' && OTHER_PROVIDERS.includes(value.trim().toLowerCase())) {
    errors.add(
      `${at}${quote(value)} is an assistant Cairn does not run (it runs ${PROVIDERS.join(' and ')}): choose one of them for this workflow`,
    );
    return undefined;
  }
  return oneOf(value, PROVIDERS, at, errors);
}

export function checkRetry(value: unknown, at: string, errors: ErrorList): RetryPolicy | undefined {
  if (!isMapping(value)) {
    errors.add(`${at}retry: must be a mapping with attempts and delay, not ${describeType(value)}`);
    return undefined;
  }
  checkKeys(value, RETRY_KEYS, `${at}retry: `, errors);
  let attempts: number | undefined;
  const rawAttempts = field(value, 'attempts');
  if (rawAttempts === undefined) errors.add(`${at}retry.attempts: required`);
  else if (typeof rawAttempts !== 'number' || !Number.isInteger(rawAttempts)) {
    errors.add(`${at}retry.attempts: must be a whole number, not ${describeType(rawAttempts)}`);
  } else if (rawAttempts < 1 || rawAttempts > MAX_RETRY_ATTEMPTS) {
    errors.add(`${at}retry.attempts: must be between 1 and ${MAX_RETRY_ATTEMPTS}`);
  } else attempts = rawAttempts;
  let delayMs: number | undefined = DEFAULT_RETRY_DELAY_MS;
  if (has(value, 'delay')) {
    const delay = checkDuration(field(value, 'delay'), RETRY_DELAY_BOUNDS);
    delayMs = delay.ok ? delay.ms : undefined;
    if (!delay.ok) errors.add(`${at}retry.delay: ${delay.message}`);
  }
  return attempts !== undefined && delayMs !== undefined ? { attempts, delayMs } : undefined;
}

export function checkApproval(value: unknown, at: string, errors: ErrorList) {
  if (!isMapping(value)) {
    errors.add(`${at}approval: must be a mapping with a message, not ${describeType(value)}`);
    return undefined;
  }
  checkKeys(value, APPROVAL_KEYS, `${at}approval: `, errors);
  const rawMessage = field(value, 'message');
  const message =
    rawMessage === undefined
      ? void errors.add(`${at}approval.message: required`)
      : nonBlankString(rawMessage, `${at}approval.message: `, errors);
  const capture = field(value, 'capture_response') ?? false;
  if (typeof capture !== 'boolean') {
    errors.add(`${at}approval.capture_response: must be true or false, not ${describeType(capture)}`);
  }
  const onReject = checkOnReject(field(value, 'on_reject'), at, errors);
  if (message === undefined) return undefined;
  return { message, captureResponse: capture === true, ...(onReject ? { onReject } : {}) };
}

/** `on_reject: {prompt, max_attempts?}`: rework after a rejection, then the gate asks again. */
function checkOnReject(value: unknown, at: string, errors: ErrorList) {
  if (value === undefined) return undefined;
  if (!isMapping(value)) {
    errors.add(`${at}approval.on_reject: must be a mapping with a prompt, not ${describeType(value)}`);
    return undefined;
  }
  checkKeys(value, ON_REJECT_KEYS, `${at}approval.on_reject: `, errors);
  const rawPrompt = field(value, 'prompt');
  const prompt =
    rawPrompt === undefined
      ? void errors.add(`${at}approval.on_reject.prompt: required`)
      : nonBlankString(rawPrompt, `${at}approval.on_reject.prompt: `, errors);
  const attempts = field(value, 'max_attempts') ?? DEFAULT_REWORK_ATTEMPTS;
  if (
    typeof attempts !== 'number' ||
    !Number.isInteger(attempts) ||
    attempts < 1 ||
    attempts > MAX_REWORK_ATTEMPTS
  ) {
    errors.add(
      `${at}approval.on_reject.max_attempts: must be a whole number from 1 to ${MAX_REWORK_ATTEMPTS}`,
    );
    return undefined;
  }
  return prompt === undefined ? undefined : { prompt, maxAttempts: attempts };
}

export function checkDependsOn(value: unknown, at: string, errors: ErrorList): string[] {
  if (!Array.isArray(value)) {
    errors.add(`${at}depends_on: must be a list of node ids, such as [plan], not ${describeType(value)}`);
    return [];
  }
  const ids: string[] = [];
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string')
      errors.add(`${at}depends_on[${i}]: must be a node id, not ${describeType(item)}`);
    else if (ids.includes(item)) errors.add(`${at}depends_on: ${quote(item)} is listed twice`);
    else ids.push(item);
  });
  return ids;
}

export function checkSchemaSafely(
  check: ((schema: object) => string | undefined) | undefined,
  schema: object,
): string | undefined {
  if (!check) return undefined;
  try {
    const problem = check(schema);
    return typeof problem === 'string' && problem !== '' ? problem : undefined;
  } catch (error) {
    return `could not be checked (${error instanceof Error ? error.message : 'unknown error'})`;
  }
}
