import type { Environment } from './environment.js';
import type { CodeHostPlatform } from '../domain/chat/chat-address.js';

// Which credentials a code host is reached with: GitLab's token; GitHub's App (its ID and key)
// when set, else GITHUB_TOKEN.

/** Whether GitHub is reached as an App: its ID and a key are set (the App wins over GITHUB_TOKEN). */
export function githubAppConfigured(environment: Environment): boolean {
  const { appId, appPrivateKey, appPrivateKeyPath } = environment.github;
  return Boolean(appId && (appPrivateKey || appPrivateKeyPath));
}

/** Whether Cairn can act on the platform: its token (or, on GitHub, an App) is set. */
export function codeHostAuthConfigured(environment: Environment, platform: CodeHostPlatform): boolean {
  return platform === 'github'
    ? Boolean(environment.github.token) || githubAppConfigured(environment)
    : Boolean(environment.gitlab.token);
}

/** The variables that give the platform's credentials, for messages that say what to set. */
export function codeHostCredentialName(environment: Environment, platform: CodeHostPlatform): string {
  if (platform === 'gitlab') return 'GITLAB_TOKEN';
  return githubAppConfigured(environment) ? 'GitHub App (GITHUB_APP_ID)' : 'GITHUB_TOKEN';
}
