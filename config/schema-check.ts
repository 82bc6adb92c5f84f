import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { expandHome } from './paths.js';
import { globalConfigSchema, repositoryConfigSchema, type ConfigFileKind } from './schema.js';

/** One rejected key: `key` is dotted (`assistants.claude.settingSources[1]`), no value shown. */
export interface KeyProblem {
  key: string;
  message: string;
}

export interface CheckResult {
  /** The input without its invalid keys. */
  value: Record<string, unknown>;
  problems: KeyProblem[];
}

type Schema = { type?: string; minimum?: number; enum?: readonly string[]; properties?: object };
type Segment = string | number;

let validators: Record<ConfigFileKind, ValidateFunction> | undefined;

function getValidators(): Record<ConfigFileKind, ValidateFunction> {
  if (!validators) {
    // verbose gives each error its parentSchema, which the messages below are built from.
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true });
    ajv.addFormat('absolute-path', (value: string) => path.isAbsolute(expandHome(value)));
    validators = { global: ajv.compile(globalConfigSchema), repository: ajv.compile(repositoryConfigSchema) };
  }
  return validators;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  integer: 'an integer',
  number: 'a number',
};

function messageFor(error: ErrorObject): string {
  const schema = (error.parentSchema ?? {}) as Schema;
  switch (error.keyword) {
    case 'additionalProperties': {
      const known = Object.keys(schema.properties ?? {});
      return known.length ? `unknown key (expected one of: ${known.join(', ')})` : 'unknown key';
    }
    case 'propertyNames':
      return 'is not a valid environment variable name';
    case 'enum':
      return `must be one of: ${(schema.enum ?? []).join(', ')}`;
    case 'minLength':
      return 'must not be empty';
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'format':
      return error.params.format === 'absolute-path' ? 'must be an absolute path' : 'has an invalid format';
    case 'type':
    case 'minimum':
      if (schema.type === 'integer' && schema.minimum !== undefined) {
        return `must be an integer >= ${schema.minimum}`;
      }
      return `must be ${TYPE_WORDS[schema.type ?? ''] ?? schema.type}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** JSON pointer → segments, with array indexes as numbers (decided by walking the data). */
function segmentsOf(pointer: string, data: unknown): Segment[] {
  const segments: Segment[] = [];
  let node = data;
  for (const part of pointer.split('/').slice(1)) {
    const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment = Array.isArray(node) ? Number(name) : name;
    segments.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return segments;
}

function dotted(segments: Segment[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** Errors inside a list drop the whole list: a half-filtered list would change its meaning. */
function pruneTarget(segments: Segment[]): string[] {
  const index = segments.findIndex((segment) => typeof segment === 'number');
  return (index === -1 ? segments : segments.slice(0, index)) as string[];
}

function removeKey(data: Record<string, unknown>, keyPath: string[]): void {
  let node: unknown = data;
  for (const key of keyPath.slice(0, -1)) {
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  const last = keyPath[keyPath.length - 1];
  if (node && typeof node === 'object' && last !== undefined) delete (node as Record<string, unknown>)[last];
}

function locate(error: ErrorObject, data: unknown): Segment[] {
  const segments = segmentsOf(error.instancePath, data);
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  if (error.keyword === 'propertyNames') segments.push(String(error.params.propertyName));
  return segments;
}

/**
 * Validates a parsed config file and removes what is invalid, so one typo costs one key rather
 * than the whole file. The input is modified.
 */
export function checkConfigFile(kind: ConfigFileKind, data: Record<string, unknown>): CheckResult {
  const validate = getValidators()[kind];
  if (validate(data)) return { value: data, problems: [] };

  const problems = new Map<string, KeyProblem>();
  const targets: string[][] = [];
  for (const error of validate.errors ?? []) {
    // A bad property name is also reported by the name's own schema; keep one message.
    if (error.propertyName !== undefined) continue;
    const segments = locate(error, data);
    const problem = { key: dotted(segments), message: messageFor(error) };
    problems.set(`${problem.key}\0${problem.message}`, problem);
    targets.push(pruneTarget(segments));
  }
  for (const target of targets) removeKey(data, target);

  // Removing keys should always leave a valid file; if not, trust nothing from it.
  const value = validate(data) ? data : {};
  return { value, problems: [...problems.values()] };
}
