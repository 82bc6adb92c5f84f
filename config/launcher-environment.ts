/** Set by bin/cairn beside the MALLOC_ARENA_MAX it chose, so that value is known as Cairn's, not the user's. */
export const LAUNCHER_MALLOC_MARKER = 'CAIRN_MALLOC_ARENA_MAX_SET';

/**
 * The environment as the user gave it, without what bin/cairn added for Cairn's own process: the
 * scripts and assistants Cairn starts keep glibc's default arenas unless the user chose otherwise.
 */
export function withoutLauncherDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env[LAUNCHER_MALLOC_MARKER] === undefined) return env;
  const { MALLOC_ARENA_MAX: _chosenByLauncher, [LAUNCHER_MALLOC_MARKER]: _marker, ...rest } = env;
  return rest;
}
