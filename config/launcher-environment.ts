/** Set by bin/cairn to the malloc variables it chose itself (comma-separated), as opposed to the user's. */
export const LAUNCHER_DEFAULTS_VARIABLE = 'CAIRN_MALLOC_DEFAULTS';

/** The variables bin/cairn may set: nothing else is ever removed on its word. */
const LAUNCHER_VARIABLES = new Set(['MALLOC_ARENA_MAX', 'MALLOC_TRIM_THRESHOLD_']);

/**
 * The environment as the user gave it, without what bin/cairn added for Cairn's own process: the
 * scripts and assistants Cairn starts keep glibc's defaults unless the user chose otherwise.
 */
export function withoutLauncherDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const chosen = env[LAUNCHER_DEFAULTS_VARIABLE];
  if (chosen === undefined) return env;
  const rest = { ...env };
  delete rest[LAUNCHER_DEFAULTS_VARIABLE];
  for (const name of chosen.split(',')) if (LAUNCHER_VARIABLES.has(name)) delete rest[name];
  return rest;
}
