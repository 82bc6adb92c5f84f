import { join } from 'node:path';
import { findOnPath, isExecutableFile } from '../../config/executables.js';
import { TEMPORAL_CLI_VERSION } from './cli-version.js';

export interface CliLocation {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache';
}

/** Where a built CLI is cached: outside CAIRN_HOME so every home (and test home) shares it. */
export function cachedCliPath(toolCacheDir: string): string {
  return join(toolCacheDir, 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, then PATH, then Cairn's cache.
 * An explicit TEMPORAL_CLI_PATH that is not executable is an error, not a silent fallback.
 */
export function findTemporalCli(options: {
  explicitPath?: string;
  pathVariable?: string;
  toolCacheDir: string;
}): CliLocation | undefined {
  if (options.explicitPath) {
    if (!isExecutableFile(options.explicitPath)) {
      throw new Error(`TEMPORAL_CLI_PATH=${options.explicitPath} is not an executable file`);
    }
    return { path: options.explicitPath, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = findOnPath('temporal', options.pathVariable);
  if (onPath) return { path: onPath, source: 'PATH' };
  const cached = cachedCliPath(options.toolCacheDir);
  return isExecutableFile(cached) ? { path: cached, source: 'cache' } : undefined;
}

/** The Go toolchain, from PATH or its usual install location. */
export function findGo(pathVariable: string | undefined): string | undefined {
  return findOnPath('go', pathVariable, ['/usr/local/go/bin']);
}
