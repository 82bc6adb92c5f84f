import type { Environment } from '../../config/environment.js';
import { AssistantError } from './types.js';

/** `global`: Claude Code's own login (~/.claude); `explicit`: tokens from Cairn's environment. */
export type ClaudeAuthMode = 'global' | 'explicit';

export interface ClaudeAuth {
  mode: ClaudeAuthMode;
  /** Why this mode: for the diagnostic line, never a value. */
  reason: string;
  /** Variables to add to the subprocess environment (secret values). */
  env: Record<string, string>;
  /** Names of the variables set in `env`, for logs. */
  variableNames: string[];
}

type ClaudeEnvironment = Environment['claude'];

function explicitTokens(claude: ClaudeEnvironment): Record<string, string> {
  const env: Record<string, string> = {};
  if (claude.oauthToken) env.CLAUDE_CODE_OAUTH_TOKEN = claude.oauthToken;
  // CLAUDE_API_KEY is Cairn's name; the CLI reads ANTHROPIC_API_KEY, which wins when both are set.
  const apiKey = claude.anthropicApiKey ?? claude.apiKey;
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  return env;
}

/**
 * CLAUDE_USE_GLOBAL_AUTH=true: no tokens, the CLI's own login. false: tokens are required.
 * Unset: tokens when there are any, else the CLI's own login.
 */
export function resolveClaudeAuth(claude: ClaudeEnvironment): ClaudeAuth {
  const tokens = explicitTokens(claude);
  const hasTokens = Object.keys(tokens).length > 0;
  if (claude.useGlobalAuth === true) {
    return { mode: 'global', reason: 'CLAUDE_USE_GLOBAL_AUTH=true', env: {}, variableNames: [] };
  }
  if (claude.useGlobalAuth === false && !hasTokens) {
    throw new AssistantError(
      'auth_missing',
      'CLAUDE_USE_GLOBAL_AUTH=false, but none of CLAUDE_CODE_OAUTH_TOKEN, CLAUDE_API_KEY or ANTHROPIC_API_KEY is set. ' +
        'Set one of them, or set CLAUDE_USE_GLOBAL_AUTH=true to use the login of the claude CLI.',
    );
  }
  if (!hasTokens) {
    return { mode: 'global', reason: 'auto: no token variables set', env: {}, variableNames: [] };
  }
  const reason =
    claude.useGlobalAuth === false ? 'CLAUDE_USE_GLOBAL_AUTH=false' : 'auto: token variables set';
  return { mode: 'explicit', reason, env: tokens, variableNames: Object.keys(tokens).sort() };
}
