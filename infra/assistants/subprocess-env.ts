import { describeEnvironmentVariables } from '../../config/environment.js';
import { withoutClaudeSessionMarkers } from '../../config/claude-session-markers.js';
import { withoutLauncherDefaults } from '../../config/launcher-environment.js';

/** Code-host tokens stay: assistants push branches and open pull requests with git and gh. */
const KEPT_SECRETS = new Set(['GITHUB_TOKEN', 'GH_TOKEN', 'GITLAB_TOKEN']);

/** Cairn's own secrets (database URL, bot tokens, webhook secrets, assistant credentials). */
function cairnSecretNames(): string[] {
  return describeEnvironmentVariables()
    .filter((variable) => variable.secret && !KEPT_SECRETS.has(variable.name))
    .map((variable) => variable.name);
}

/**
 * For code from outside the repository (a fork's pull request): the process environment without
 * even the code-host tokens, which a fork's author must never be able to read.
 */
export function withoutCodeHostTokens(processEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...processEnv };
  for (const name of KEPT_SECRETS) delete env[name];
  return env;
}

/**
 * The environment an assistant subprocess starts from: Cairn's own, without Claude session
 * markers, without what Cairn's launcher added for itself, and without Cairn's secrets. Assistant
 * credentials are added back by each provider's auth module, so a key only reaches the subprocess
 * when the chosen auth mode wants it.
 */
export function baseSubprocessEnv(processEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(
    withoutClaudeSessionMarkers(withoutLauncherDefaults(processEnv)),
  )) {
    if (value !== undefined) env[key] = value;
  }
  for (const name of cairnSecretNames()) delete env[name];
  // Not in Cairn's table, but read by the assistants' CLIs themselves.
  for (const name of ['ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'CODEX_API_KEY']) delete env[name];
  return env;
}
