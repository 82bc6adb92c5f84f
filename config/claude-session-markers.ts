/** Set by Claude Code for its child processes: their presence means we run inside a session. */
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

/** A variable describing the surrounding Claude session, which a Claude we start must not inherit. */
export function isClaudeSessionVariable(name: string): boolean {
  return (name === 'CLAUDECODE' || name.startsWith('CLAUDE_CODE_')) && !CLAUDE_AUTH_VARIABLES.has(name);
}

/** A copy without the session variables, so a Claude we start does not believe it is nested. */
export function withoutClaudeSessionMarkers(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isClaudeSessionVariable(name)));
}
