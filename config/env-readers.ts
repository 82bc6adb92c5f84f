import { expandHome } from './paths.js';

/** One environment variable: how to document it and how to read it. */
export interface VariableSpec<T> {
  readonly name: string;
  /** Other names accepted when `name` is unset, in order (GH_TOKEN for GITHUB_TOKEN). */
  readonly aliases: readonly string[];
  readonly description: string;
  /** What applies when unset, as shown in docs; undefined means "unset". */
  readonly defaultText: string | undefined;
  readonly secret: boolean;
  /** Turns the raw value (first non-blank of name and aliases) into T; throws InvalidValue. */
  readonly read: (raw: string | undefined, env: NodeJS.ProcessEnv) => T;
}

/** Thrown by readers; the message completes "<NAME> ..." and never contains the value. */
export class InvalidValue extends Error {}

interface Common {
  description: string;
  secret?: boolean;
  aliases?: readonly string[];
  defaultText?: string;
}

function spec<T>(
  name: string,
  options: Common,
  defaultText: string | undefined,
  read: VariableSpec<T>['read'],
) {
  return {
    name,
    aliases: options.aliases ?? [],
    description: options.description,
    defaultText: options.defaultText ?? defaultText,
    secret: options.secret ?? false,
    read,
  } satisfies VariableSpec<T>;
}

export function text(name: string, options: Common & { default: string }): VariableSpec<string>;
export function text(
  name: string,
  options: Common & { pattern?: RegExp; patternText?: string },
): VariableSpec<string | undefined>;
export function text(
  name: string,
  options: Common & { default?: string; pattern?: RegExp; patternText?: string },
): VariableSpec<string | undefined> {
  return spec(name, options, options.default, (raw) => {
    if (raw !== undefined && options.pattern && !options.pattern.test(raw)) {
      throw new InvalidValue(`must be ${options.patternText ?? `a value matching ${options.pattern}`}`);
    }
    return raw ?? options.default;
  });
}

/** A filesystem path; a leading `~` is expanded. */
export function filePath(name: string, options: Common): VariableSpec<string | undefined> {
  return spec(name, options, undefined, (raw) => (raw === undefined ? undefined : expandHome(raw)));
}

/** A value computed from the environment (a path default, another variable's value). */
export function derived<T>(
  name: string,
  options: Common & { defaultText: string; read: (raw: string | undefined, env: NodeJS.ProcessEnv) => T },
): VariableSpec<T> {
  return spec(name, options, options.defaultText, options.read);
}

interface IntegerOptions extends Common {
  min?: number;
  max?: number;
}

function describeRange({ min, max }: IntegerOptions): string {
  if (min !== undefined && max !== undefined) return `an integer between ${min} and ${max}`;
  if (min !== undefined) return `an integer >= ${min}`;
  if (max !== undefined) return `an integer <= ${max}`;
  return 'an integer';
}

export function integer(name: string, options: IntegerOptions & { default: number }): VariableSpec<number>;
export function integer(name: string, options: IntegerOptions): VariableSpec<number | undefined>;
export function integer(
  name: string,
  options: IntegerOptions & { default?: number },
): VariableSpec<number | undefined> {
  const fallback = options.default;
  return spec(name, options, fallback?.toString(), (raw) => {
    if (raw === undefined) return fallback;
    const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
    const inRange =
      Number.isSafeInteger(value) &&
      (options.min === undefined || value >= options.min) &&
      (options.max === undefined || value <= options.max);
    if (!inRange) throw new InvalidValue(`must be ${describeRange(options)}`);
    return value;
  });
}

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

/** Lenient boolean parsing shared with code that must not throw (the nested-session warning). */
export function parseBoolean(raw: string | undefined): boolean | undefined {
  const word = raw?.trim().toLowerCase();
  if (word === undefined) return undefined;
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return undefined;
}

export function flag(name: string, options: Common & { default: boolean }): VariableSpec<boolean>;
export function flag(name: string, options: Common): VariableSpec<boolean | undefined>;
export function flag(
  name: string,
  options: Common & { default?: boolean },
): VariableSpec<boolean | undefined> {
  return spec(name, options, options.default?.toString(), (raw) => {
    if (raw === undefined) return options.default;
    const value = parseBoolean(raw);
    if (value === undefined) {
      throw new InvalidValue(
        `must be one of: ${TRUE_WORDS.flatMap((word, i) => [word, FALSE_WORDS[i]]).join(', ')}`,
      );
    }
    return value;
  });
}

export function choice<const V extends string>(
  name: string,
  values: readonly V[],
  options: Common & { default: V },
): VariableSpec<V>;
export function choice<const V extends string>(
  name: string,
  values: readonly V[],
  options: Common,
): VariableSpec<V | undefined>;
export function choice<const V extends string>(
  name: string,
  values: readonly V[],
  options: Common & { default?: V },
): VariableSpec<V | undefined> {
  return spec(name, options, options.default, (raw) => {
    if (raw === undefined) return options.default;
    const match = values.find((value) => value === raw.toLowerCase());
    if (match === undefined) throw new InvalidValue(`must be one of: ${values.join(', ')}`);
    return match;
  });
}

/** Comma-separated list; empty when unset (for allow-lists, empty means open access). */
export function list(
  name: string,
  options: Common & { lowercase?: boolean },
): VariableSpec<readonly string[]> {
  return spec(name, options, options.defaultText ?? 'empty', (raw) => {
    const items = (raw ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    return options.lowercase ? items.map((item) => item.toLowerCase()) : items;
  });
}
