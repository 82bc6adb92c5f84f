import { nestedSessionWarning } from '../../config/dotenv.js';

/** Set by Claude Code for the processes it starts: their presence means we run inside a session. */
const SESSION_MARKERS = ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT'];
/** CLAUDE_CODE_* variables that are credentials or provider choices, not session state. */
const CLAUDE_AUTH_VARIABLES = new Set([
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
]);

export function isInsideClaudeSession(env: NodeJS.ProcessEnv): boolean {
  return SESSION_MARKERS.some((name) => env[name] !== undefined);
}

function isSessionState(name: string): boolean {
  return (name === 'CLAUDECODE' || name.startsWith('CLAUDE_CODE_')) && !CLAUDE_AUTH_VARIABLES.has(name);
}

/** A copy without the markers, so a Claude we start does not believe it is nested. */
export function withoutClaudeSessionMarkers(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSessionState(name)));
}

/** `suppressed` is CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING as read into the Environment. */
export type NestedSessionWarner = (env: NodeJS.ProcessEnv, suppressed: boolean) => boolean;

/**
 * A warner that prints at most once in its lifetime. The CLI's boot already strips the markers
 * and warns; this catches embedders (tests, scripts) that start assistants without that boot.
 */
export function createNestedSessionWarner(write: (text: string) => unknown): NestedSessionWarner {
  let warned = false;
  return (env, suppressed) => {
    if (warned || suppressed || !isInsideClaudeSession(env)) return false;
    warned = true;
    write(nestedSessionWarning());
    return true;
  };
}

/** The process-wide warner: one warning per process on stderr. */
export const warnIfNestedOnce: NestedSessionWarner = createNestedSessionWarner((text) =>
  process.stderr.write(text),
);
