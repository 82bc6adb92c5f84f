import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface HomeLayout {
  readonly home: string;
  readonly configFile: string;
  readonly envFile: string;
  readonly databaseFile: string;
  readonly temporalDatabaseFile: string;
  readonly workspaces: string;
  readonly worktrees: string;
  readonly logs: string;
  readonly cache: string;
}

/** Expands a leading `~` (alone or followed by a separator) to the user's home directory. */
export function expandHome(value: string): string {
  if (value === '~') return homedir();
  if (value.startsWith('~/') || value.startsWith('~\\')) return path.join(homedir(), value.slice(2));
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The Cairn home directory: CAIRN_HOME (with `~` expanded), else `~/.cairn`. Always absolute. */
export function resolveCairnHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = nonEmpty(env.CAIRN_HOME);
  return configured ? path.resolve(expandHome(configured)) : path.join(homedir(), '.cairn');
}

export function homeLayout(home: string): HomeLayout {
  return Object.freeze({
    home,
    configFile: path.join(home, 'config.yaml'),
    envFile: path.join(home, '.env'),
    databaseFile: path.join(home, 'cairn.db'),
    temporalDatabaseFile: path.join(home, 'temporal.db'),
    workspaces: path.join(home, 'workspaces'),
    worktrees: path.join(home, 'worktrees'),
    logs: path.join(home, 'logs'),
    cache: path.join(home, 'cache'),
  });
}

/**
 * Cache for downloaded or built tools (the Temporal CLI). Deliberately outside CAIRN_HOME so
 * that throwaway homes (tests, worktrees) share one slow build.
 */
export function toolCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = nonEmpty(env.CAIRN_TOOL_CACHE);
  if (explicit) return path.resolve(expandHome(explicit));
  // The XDG spec says relative values must be ignored.
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'cairn');
  return path.join(homedir(), '.cache', 'cairn');
}

export function ensureHomeLayout(layout: HomeLayout): void {
  for (const dir of [layout.home, layout.workspaces, layout.worktrees, layout.logs, layout.cache]) {
    mkdirSync(dir, { recursive: true });
  }
}
