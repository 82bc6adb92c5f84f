import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import type { Environment } from '../../config/environment.js';
import { appPrivateKey, signAppJwt, type AppJwt } from './github-app-jwt.js';
import { githubAppConfigured } from '../../config/code-host-auth.js';

// Cairn as a GitHub App: a JWT signed with the App's key is exchanged for an installation token
// (one per installation, an hour long), which acts on the installation's repositories for the
// API and for git. Tokens are kept until a few minutes before they expire; one process shares
// them between its API calls and its git commands.

/** A token is replaced this long before its expires_at, so no call starts with one about to lapse. */
const TOKEN_MARGIN_MS = 5 * 60_000;
/** A JWT is signed again this long before its exp. */
const JWT_MARGIN_S = 60;

export interface GitHubAppSettings {
  appId: string;
  /** PEM text (GITHUB_APP_PRIVATE_KEY). */
  privateKey?: string;
  /** A file holding it (GITHUB_APP_PRIVATE_KEY_PATH), read when first needed. */
  privateKeyPath?: string;
  apiUrl: string;
  /** The clock, for tests of expiry. */
  now?: () => number;
}

interface InstallationToken {
  token: string;
  expiresAt: number;
}

const quiet = () => undefined;

export class GitHubApp {
  /** Bare Octokit for the App's own routes, each call with the JWT. */
  private readonly octokit: Octokit;
  private readonly now: () => number;
  private key: Promise<KeyObject> | undefined;
  private jwt: AppJwt | undefined;
  private readonly tokens = new Map<number, InstallationToken>();
  private readonly exchanges = new Map<number, Promise<InstallationToken>>();
  private readonly installations = new Map<string, Promise<number>>();
  private login: Promise<string> | undefined;

  constructor(private readonly settings: GitHubAppSettings) {
    this.octokit = new Octokit({
      baseUrl: settings.apiUrl.replace(/\/$/, ''),
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    });
    this.now = settings.now ?? Date.now;
  }

  get appId(): string {
    return this.settings.appId;
  }

  /** The Authorization header of the App itself (a fresh enough JWT). */
  async appAuthorization(): Promise<string> {
    const nowS = Math.floor(this.now() / 1000);
    if (!this.jwt || this.jwt.expiresAt - JWT_MARGIN_S <= nowS) {
      this.jwt = signAppJwt(this.settings.appId, await this.privateKey(), this.now());
    }
    return `Bearer ${this.jwt.jwt}`;
  }

  /** The App's bot user (`<slug>[bot]`), who writes its comments; proves the key on the way. */
  botLogin(): Promise<string> {
    this.login ??= this.appAuthorization()
      .then((authorization) => this.octokit.request('GET /app', { headers: { authorization } }))
      .then((answer) => `${answer.data?.slug ?? `app-${this.settings.appId}`}[bot]`);
    this.login.catch(() => (this.login = undefined));
    return this.login;
  }

  /** The installation on `owner/repo`, from a webhook (remembered) or from the API. */
  installationFor(repositoryPath: string): Promise<number> {
    const key = repositoryPath.toLowerCase();
    let found = this.installations.get(key);
    if (!found) {
      const [owner, repo] = repositoryPath.split('/');
      found = this.appAuthorization()
        .then((authorization) =>
          this.octokit.request('GET /repos/{owner}/{repo}/installation', {
            owner: owner!,
            repo: repo!,
            headers: { authorization },
          }),
        )
        .then((answer) => answer.data.id);
      found.catch(() => this.installations.delete(key));
      this.installations.set(key, found);
    }
    return found;
  }

  /** A webhook's `installation.id` for its repository: saves the lookup. */
  rememberInstallation(repositoryPath: string, installationId: number): void {
    this.installations.set(repositoryPath.toLowerCase(), Promise.resolve(installationId));
  }

  /** The installation's token, from the cache while it has more than a few minutes left. */
  async installationToken(installationId: number): Promise<string> {
    const held = this.tokens.get(installationId);
    if (held && held.expiresAt - TOKEN_MARGIN_MS > this.now()) return held.token;
    // Calls that need a new token at once share one exchange.
    let pending = this.exchanges.get(installationId);
    if (!pending) {
      pending = this.exchange(installationId)
        .then((token) => {
          this.tokens.set(installationId, token);
          return token;
        })
        .finally(() => this.exchanges.delete(installationId));
      this.exchanges.set(installationId, pending);
    }
    return (await pending).token;
  }

  /** The token for API calls and git on `owner/repo`. */
  async tokenFor(repositoryPath: string): Promise<string> {
    const installationId = await this.installationFor(repositoryPath);
    try {
      return await this.installationToken(installationId);
    } catch (error) {
      // The App was uninstalled (and maybe installed again under a new id): look it up next time.
      if ((error as { status?: number }).status === 404)
        this.installations.delete(repositoryPath.toLowerCase());
      throw error;
    }
  }

  /** GitHub refused `token` (expired early, revoked): the next call gets a new one. */
  forget(token: string): void {
    for (const [installationId, held] of this.tokens) {
      if (held.token === token) this.tokens.delete(installationId);
    }
  }

  private async exchange(installationId: number): Promise<InstallationToken> {
    const answer = await this.octokit.request('POST /app/installations/{installation_id}/access_tokens', {
      installation_id: installationId,
      headers: { authorization: await this.appAuthorization() },
    });
    return { token: answer.data.token, expiresAt: Date.parse(answer.data.expires_at) };
  }

  private privateKey(): Promise<KeyObject> {
    this.key ??= (async () => {
      const { privateKey, privateKeyPath } = this.settings;
      if (privateKey) return appPrivateKey(privateKey, 'GITHUB_APP_PRIVATE_KEY');
      if (!privateKeyPath)
        throw new Error('GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH must be set');
      const text = await readFile(privateKeyPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new Error(`GITHUB_APP_PRIVATE_KEY_PATH cannot be read (${error.code ?? error.message})`);
      });
      return appPrivateKey(text, 'GITHUB_APP_PRIVATE_KEY_PATH');
    })();
    return this.key;
  }
}

// One App per process and settings: API calls and git commands share its tokens.
const apps = new Map<string, GitHubApp>();

/** The process's GitHub App for these settings, or undefined when no App is configured. */
export function githubAppFor(environment: Environment): GitHubApp | undefined {
  if (!githubAppConfigured(environment)) return undefined;
  const { appId, appPrivateKey, appPrivateKeyPath, apiUrl } = environment.github;
  const key = JSON.stringify([appId, apiUrl, appPrivateKey ?? '', appPrivateKeyPath ?? '']);
  let app = apps.get(key);
  if (!app) {
    app = new GitHubApp({
      appId: appId!,
      privateKey: appPrivateKey,
      privateKeyPath: appPrivateKeyPath,
      apiUrl,
    });
    apps.set(key, app);
  }
  return app;
}
