import type { GitHubApp } from './github-app.js';

// Octokit's auth hook for a GitHub App: each request on a repository route (owner and repo in
// its parameters) carries that repository's installation token; the App's own routes (/app…)
// carry the JWT. A token GitHub refuses with 401 (revoked, expired early) is dropped and the
// request made once more with a new one.

interface EndpointOptions {
  url: string;
  owner?: unknown;
  repo?: unknown;
  headers: Record<string, string | undefined>;
  [key: string]: unknown;
}

interface RequestFn {
  (options: EndpointOptions): Promise<unknown>;
  endpoint: { merge(route: unknown, parameters?: unknown): EndpointOptions };
}

function repositoryOf(endpoint: EndpointOptions): string | undefined {
  const { owner, repo } = endpoint;
  return typeof owner === 'string' && typeof repo === 'string' ? `${owner}/${repo}` : undefined;
}

const statusOf = (error: unknown) => (error as { status?: number })?.status;

/** Octokit's `authStrategy` for a GitHub App; its `auth` option is `{ app }` (Octokit spreads it into these options). */
export function installationAuth(options: { app?: GitHubApp } & Record<string, unknown>) {
  const app = options.app!;
  const auth = async () => ({ type: 'app', appId: app.appId });
  return Object.assign(auth, {
    async hook(request: RequestFn, route: unknown, parameters?: unknown): Promise<unknown> {
      const endpoint = request.endpoint.merge(route, parameters);
      if (/^\/app(\/|$)/.test(endpoint.url)) {
        endpoint.headers.authorization = await app.appAuthorization();
        return request(endpoint);
      }
      const repository = repositoryOf(endpoint);
      if (!repository)
        throw new Error(`${endpoint.url} is not a repository's route: a GitHub App cannot call it`);
      const token = await app.tokenFor(repository);
      endpoint.headers.authorization = `token ${token}`;
      try {
        return await request(endpoint);
      } catch (error) {
        if (statusOf(error) !== 401) throw error;
        app.forget(token);
        endpoint.headers.authorization = `token ${await app.tokenFor(repository)}`;
        return request(endpoint);
      }
    },
  });
}
