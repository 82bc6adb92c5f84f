import path from 'node:path';
import { parseBoolean } from './env-readers.js';
import { readEnvFile } from './env-file.js';
import type { Logger } from './logger.js';
import { isClaudeSessionVariable, isInsideClaudeSession } from './claude-session-markers.js';

/** Env files that tools (a parent shell hook, a runtime, an IDE) may auto-load from the cwd. */
export const WORKING_DIRECTORY_ENV_FILES = [
  '.env',
  '.env.local',
  '.env.development',
  '.env.production',
  '.env.development.local',
  '.env.production.local',
] as const;

export interface PrepareEnvironmentOptions {
  /** The directory Cairn was started from: possibly a target repository with its own .env. */
  cwd: string;
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Running from a source checkout (development server) rather than a compiled build. */
  isSourceBuild?: boolean;
  /** Root of Cairn's own checkout; its .env is read when isSourceBuild. */
  packageRoot?: string;
  logger?: Logger;
}

/** Names and paths only: values never leave this module. */
export interface PreparedEnvironment {
  removedKeys: string[];
  loadedFrom: string[];
  nestedInClaudeSession: boolean;
}

function tryReadEnvFile(file: string, logger: Logger | undefined): Map<string, string> | undefined {
  try {
    return readEnvFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    logger?.warn({ event: 'env.file_unreadable', file, code }, `Cannot read ${file} (${code}); skipped`);
    return undefined;
  }
}

/** (a) A cwd env-file key whose value is exactly what we hold was auto-loaded from it: drop it. */
function removeWorkingDirectoryKeys(cwd: string, env: NodeJS.ProcessEnv, logger?: Logger): string[] {
  const removed: string[] = [];
  for (const name of WORKING_DIRECTORY_ENV_FILES) {
    const values = tryReadEnvFile(path.join(cwd, name), logger);
    for (const [key, value] of values ?? []) {
      if (env[key] === value) {
        delete env[key];
        removed.push(key);
      }
    }
  }
  return removed;
}

/** (b) Claude session markers would make the Claude subprocesses we start think they are nested. */
function removeSessionMarkers(env: NodeJS.ProcessEnv): { removed: string[]; nested: boolean } {
  const nested = isInsideClaudeSession(env);
  const removed = Object.keys(env).filter(isClaudeSessionVariable);
  for (const key of removed) delete env[key];
  return { removed, nested };
}

function loadEnvFile(file: string, env: NodeJS.ProcessEnv, override: boolean, logger?: Logger): boolean {
  const values = tryReadEnvFile(file, logger);
  if (!values) return false;
  for (const [key, value] of values) {
    if (override || env[key] === undefined) env[key] = value;
  }
  logger?.debug({ event: 'env.file_loaded', file, override, keys: [...values.keys()] }, `Loaded ${file}`);
  return true;
}

/**
 * Startup environment hygiene (spec, configuration rule 7). Mutates `env` (process.env by
 * default) and must run before anything reads configuration.
 */
export function prepareProcessEnvironment(options: PrepareEnvironmentOptions): PreparedEnvironment {
  const { cwd, home, env = process.env, isSourceBuild = false, packageRoot, logger } = options;

  const fromCwd = removeWorkingDirectoryKeys(cwd, env, logger);
  if (fromCwd.length > 0) {
    logger?.info(
      { event: 'env.target_repo_keys_removed', cwd, keys: fromCwd },
      `Ignoring ${fromCwd.length} variable(s) auto-loaded from env files in ${cwd}`,
    );
  }
  const markers = removeSessionMarkers(env);

  const loadedFrom: string[] = [];
  // (c) <home>/.env is the single source of infrastructure values, so it overrides.
  const homeEnv = path.join(home, '.env');
  if (loadEnvFile(homeEnv, env, true, logger)) loadedFrom.push(homeEnv);
  // A development server also reads its own checkout's .env, as a fallback only: explicit
  // variables and <home>/.env win. When the checkout is the cwd, step (a) removed its keys
  // first, which this reload restores for exactly that case.
  if (isSourceBuild && packageRoot) {
    const devEnv = path.join(packageRoot, '.env');
    if (devEnv !== homeEnv && loadEnvFile(devEnv, env, false, logger)) loadedFrom.push(devEnv);
  }

  return {
    removedKeys: [...new Set([...fromCwd, ...markers.removed])].sort(),
    loadedFrom,
    nestedInClaudeSession: markers.nested,
  };
}

export function nestedSessionWarning(): string {
  return [
    'Warning: Cairn is running inside a Claude Code session.',
    'Claude sessions that Cairn starts could inherit that session, so its markers were removed from',
    "Cairn's environment. For predictable behaviour, start Cairn from a normal terminal.",
    'Set CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING=1 to hide this message.',
    '',
  ].join('\n');
}

/** Prints the nested-session warning when needed; returns whether it printed. */
export function warnIfNested(
  result: Pick<PreparedEnvironment, 'nestedInClaudeSession'>,
  env: NodeJS.ProcessEnv = process.env,
  write: (text: string) => unknown = (text) => process.stderr.write(text),
): boolean {
  if (!result.nestedInClaudeSession) return false;
  if (parseBoolean(env.CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING) === true) return false;
  write(nestedSessionWarning());
  return true;
}
