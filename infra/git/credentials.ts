import { redactUrlCredentials } from '../../domain/codebases/repository-identity.js';
import type { Environment } from '../../config/environment.js';
import { githubAppConfigured } from '../../config/code-host-auth.js';

/**
 * Credentials for git over https, given to git through GIT_CONFIG_* environment variables:
 * unlike `-c` arguments or a token in the URL they never show in `ps`, in the clone's
 * .git/config, or in git's own error messages.
 */
export interface GitCredentials {
  /** Extra environment for the git process. */
  env: Record<string, string>;
  /** Every secret string involved, for scrubbing messages. */
  secrets: string[];
}

const NONE: GitCredentials = { env: {}, secrets: [] };

function basicHeader(user: string, token: string): string {
  return `Authorization: Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
}

function httpsOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The code host whose git a URL's origin is, when Cairn holds credentials for it. */
function hostOf(origin: string, environment: Environment): 'github' | 'gitlab' | undefined {
  const host = new URL(origin).hostname.toLowerCase();
  const { github, gitlab } = environment;
  if (host === 'github.com' || host.endsWith('.github.com') || origin === httpsOrigin(github.apiUrl))
    return 'github';
  if (host === 'gitlab.com' || (gitlab.url && origin === httpsOrigin(gitlab.url))) return 'gitlab';
  return undefined;
}

/**
 * GITHUB_TOKEN (or GH_TOKEN) for github.com and for GITHUB_API_URL's origin (GitHub Enterprise
 * Server serves git and its API from one host); GITLAB_TOKEN for gitlab.com and GITLAB_URL's
 * origin. A configured host is matched with its scheme and port, so a token never goes to
 * another service that shares the host name. `githubToken` replaces GITHUB_TOKEN (a GitHub App's
 * installation token).
 */
export function gitCredentialsFor(
  url: string,
  environment: Environment,
  githubToken?: string,
): GitCredentials {
  const origin = httpsOrigin(url);
  if (!origin) return NONE;
  let header: string | undefined;
  let token: string | undefined;
  const host = hostOf(origin, environment);
  if (host === 'github' && (githubToken ?? environment.github.token)) {
    token = (githubToken ?? environment.github.token)!;
    header = basicHeader('x-access-token', token);
  } else if (host === 'gitlab' && environment.gitlab.token) {
    token = environment.gitlab.token;
    header = basicHeader('oauth2', token);
  }
  if (!header || !token) return NONE;
  return {
    env: {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${origin}/.extraheader`,
      GIT_CONFIG_VALUE_0: header,
    },
    secrets: [token, header, header.replace('Authorization: Basic ', '')],
  };
}

/**
 * The credentials git gets for `url`: with a GitHub App configured, a GitHub repository's
 * installation token (GitHub's API says which installation holds it); otherwise as above. When
 * the App cannot give a token (not installed there, GitHub unreachable), the token path is used:
 * a public repository needs none, a private one then fails in git with its own message.
 */
export async function gitCredentialsForUrl(url: string, environment: Environment): Promise<GitCredentials> {
  const origin = httpsOrigin(url);
  if (!githubAppConfigured(environment) || !origin || hostOf(origin, environment) !== 'github')
    return gitCredentialsFor(url, environment);
  // Octokit is loaded only where an App is configured.
  const { githubAppFor } = await import('../codehost/github-app.js');
  const app = githubAppFor(environment)!;
  const path = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(new URL(url).pathname);
  if (!path) return gitCredentialsFor(url, environment);
  try {
    return gitCredentialsFor(url, environment, await app.tokenFor(`${path[1]}/${path[2]}`));
  } catch {
    return gitCredentialsFor(url, environment);
  }
}

// Shorter "secrets" (empty values, `a=b`) would mangle unrelated text and protect nothing.
const MIN_SECRET_LENGTH = 4;

/** Replaces each secret string in `text` with `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .reduce((scrubbed, secret) => scrubbed.split(secret).join('***'), text);
}

/** Removes URL credentials and the given secrets from text bound for a message, a log or a response. */
export function scrubCredentials(text: string, secrets: readonly string[] = []): string {
  return scrubSecrets(redactUrlCredentials(text), secrets);
}
