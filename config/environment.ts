import { ConfigError, type ConfigIssue } from './errors.js';
import { InvalidValue, type VariableSpec } from './env-readers.js';
import { ENVIRONMENT_TABLE } from './env-variables.js';
import { deepFreeze } from './freeze.js';

type Table = typeof ENVIRONMENT_TABLE;
type ValueOf<S> = S extends VariableSpec<infer T> ? T : never;

/** Every environment value Cairn uses, parsed and defaulted, grouped as in ENVIRONMENT_TABLE. */
export type Environment = {
  readonly [G in keyof Table]: { readonly [K in keyof Table[G]]: ValueOf<Table[G][K]> };
};

export interface EnvironmentVariableInfo {
  name: string;
  /** Group in the table: general, claude, codex, telegram, github, ... */
  group: string;
  /** What applies when unset; undefined means the variable is simply unset. */
  default: string | undefined;
  description: string;
  secret: boolean;
  /** Set on alias rows: the variable this one stands in for. */
  aliasOf?: string;
}

type AnySpec = VariableSpec<unknown>;

function groups(): Array<[string, Record<string, AnySpec>]> {
  return Object.entries(ENVIRONMENT_TABLE) as Array<[string, Record<string, AnySpec>]>;
}

/** Blank values count as unset: `FOO=` in a .env file should not defeat a default. */
function rawValue(spec: AnySpec, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of [spec.name, ...spec.aliases]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * Reads and validates every variable at once, so a misconfigured deployment learns about all
 * its mistakes in one error rather than one restart per mistake.
 */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const issues: ConfigIssue[] = [];
  const result: Record<string, Record<string, unknown>> = {};
  for (const [group, specs] of groups()) {
    const values: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(specs)) {
      const raw = rawValue(spec, env);
      try {
        values[key] = spec.read(raw, env);
      } catch (error) {
        if (!(error instanceof InvalidValue)) throw error;
        // Secrets never appear in messages, not even when wrong.
        const got = spec.secret || raw === undefined ? '' : ` (got ${JSON.stringify(raw)})`;
        issues.push({ name: spec.name, message: `${error.message}${got}` });
      }
    }
    result[group] = values;
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return deepFreeze(result) as Environment;
}

/** The reference of every variable, for docs/configuration.md and `cairn doctor`. */
export function describeEnvironmentVariables(): EnvironmentVariableInfo[] {
  const rows: EnvironmentVariableInfo[] = [];
  for (const [group, specs] of groups()) {
    for (const spec of Object.values(specs)) {
      const { name, defaultText, description, secret } = spec;
      rows.push({ name, group, default: defaultText, description, secret });
      for (const alias of spec.aliases) {
        rows.push({
          name: alias,
          group,
          default: undefined,
          description: `Alias of ${name}, used when ${name} is unset`,
          secret,
          aliasOf: name,
        });
      }
    }
  }
  return rows;
}
