import type { Environment } from '../../config/environment.js';
import type { CodeHostPlatform } from '../../domain/chat/chat-address.js';
import type { CodeHostClient } from './code-host-client.js';
import { githubAppConfigured } from '../../config/code-host-auth.js';

/** GitLab.com, when GITLAB_URL does not name a self-hosted instance. */
export const GITLAB_URL_DEFAULT = 'https://gitlab.com';

/** The platform's client when its token is set (its SDK loaded only then); undefined otherwise. */
export async function codeHostClientFor(
  environment: Environment,
  platform: CodeHostPlatform,
): Promise<CodeHostClient | undefined> {
  if (platform === 'github' && (environment.github.token || githubAppConfigured(environment))) {
    const [{ createGitHubClient }, { githubAppFor }] = await Promise.all([
      import('./github-client.js'),
      import('./github-app.js'),
    ]);
    return createGitHubClient({
      token: environment.github.token,
      app: githubAppFor(environment),
      apiUrl: environment.github.apiUrl,
    });
  }
  if (platform === 'gitlab' && environment.gitlab.token) {
    const { createGitLabClient } = await import('./gitlab-client.js');
    return createGitLabClient({
      token: environment.gitlab.token,
      url: environment.gitlab.url ?? GITLAB_URL_DEFAULT,
    });
  }
  return undefined;
}

/** Clients built once per platform and kept (a worker answers many threads). */
export function codeHostClients(environment: Environment) {
  const built = new Map<CodeHostPlatform, Promise<CodeHostClient | undefined>>();
  return (platform: CodeHostPlatform): Promise<CodeHostClient | undefined> => {
    let client = built.get(platform);
    if (!client) {
      client = codeHostClientFor(environment, platform);
      built.set(platform, client);
    }
    return client;
  };
}
