import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TEMPORAL_CLI_VERSION } from './cli-version.js';

export interface CliLocation {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache';
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a built CLI is cached: outside CAIRN_HOME so every home (and test home) shares it. */
export function cachedCliPath(toolCacheDir: string): string {
  return join(toolCacheDir, 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, then PATH, then Cairn's cache.
 * An explicit TEMPORAL_CLI_PATH that is not executable is an error, not a silent fallback.
 */
export function findTemporalCli(env: NodeJS.ProcessEnv, toolCacheDir: string): CliLocation | undefined {
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutableFile(explicit)) {
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    }
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'temporal');
    if (isExecutableFile(candidate)) return { path: candidate, source: 'PATH' };
  }
  const cached = cachedCliPath(toolCacheDir);
  return isExecutableFile(cached) ? { path: cached, source: 'cache' } : undefined;
}

/** The Go toolchain, from PATH or its usual install location. */
export function findGo(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/local/go/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'go');
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
