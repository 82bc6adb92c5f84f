/**
 * A fake of GitHub's REST API on loopback, for the real Octokit client: the calls the bot makes
 * (the authenticated user, collaborator permissions, issue comments, reactions), answered with
 * GitHub's shapes and statuses, each recorded. Webhook payloads are signed as GitHub signs them.
 */
import { createHmac, createVerify, randomBytes, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiRefusal, FakeCodeHostServer, type FakeComment, type RouteAnswer } from './code-host-fake.js';

export { serverError, tooManyRequests } from './code-host-fake.js';

export const GITHUB_TOKEN = 'ghp_fake_token_for_tests';

/** The variables of a Cairn whose GitHub door talks to `github` with a token, mentioned as @cairn-bot. */
export function githubDoorEnv(github: { url: string }, webhookSecret: string): Record<string, string> {
  return {
    GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    WEBHOOK_SECRET: webhookSecret,
    GITHUB_BOT_MENTION: 'cairn-bot',
  };
}

/** X-Hub-Signature-256 of a body: what GitHub sends with every delivery. */
export function signGitHub(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** A GitHub App the fake knows: its ID, its slug, and the public half of its key. */
export interface FakeApp {
  id: number;
  slug: string;
  publicKey: KeyObject;
}

/** The claims of a JWT the fake accepted. */
export interface AppJwtClaims {
  iat: number;
  exp: number;
  iss: number | string;
}

export class FakeGitHub extends FakeCodeHostServer {
  /** The GitHub App whose JWTs the App's routes accept (none until a test sets one). */
  app: FakeApp | undefined;
  /** `owner/repo` -> the id of the App's installation that holds it. */
  readonly installations = new Map<string, number>();
  /** Installation tokens issued: token -> its installation and expiry (epoch ms). */
  readonly installationTokens = new Map<string, { installationId: number; expiresAt: number }>();
  /** The claims of every JWT accepted, in order. */
  readonly acceptedJwts: AppJwtClaims[] = [];
  /** How long an installation token lives (GitHub: one hour). */
  tokenLifetimeMs = 60 * 60_000;
  /** Moves the fake's clock (JWT checks, token expiry) ahead, for tests of expiry. */
  clockOffsetMs = 0;
  /** Check runs made, with every state they went through (only an App's installation token may write them). */
  readonly checkRuns: Array<{
    id: number;
    repository: string;
    name: string;
    headSha: string;
    externalId: string;
    detailsUrl?: string;
    status: string;
    conclusion?: string;
    output?: { title?: string; summary?: string };
    states: string[];
  }> = [];
  readonly botLogin = 'cairn-bot';
  /** login (lower case) -> permission; anyone else is not a collaborator. */
  readonly permissions = new Map<string, string>();
  readonly comments: FakeComment[] = [];
  readonly reactions: Array<{ on: string; content: string; id: number }> = [];
  /** `owner/repo#7` -> the pull request's head: its commit and the repository it comes from. */
  readonly pulls = new Map<string, { sha: string; repository: string; branch: string }>();
  /** Pull requests the bot opened: `owner/repo` with each one's number, branch, base, title and body. */
  readonly opened: Array<{
    repository: string;
    number: number;
    head: string;
    base: string;
    title: string;
    body: string;
  }> = [];
  private nextId = 1000;

  constructor() {
    super({ tokenUser: 'x-access-token', token: GITHUB_TOKEN, realm: 'GitHub' });
    const repo = '/repos/([^/]+)/([^/]+)';
    this.route('GET', /^\/app$/, (_match, _body, _query, headers) => {
      const app = this.verifyJwt(headers.authorization);
      return { status: 200, body: { id: app.id, slug: app.slug, name: app.slug, owner: { login: 'acme' } } };
    });
    this.route('POST', /^\/app\/installations\/(\d+)\/access_tokens$/, (match, _body, _query, headers) => {
      this.verifyJwt(headers.authorization);
      const installationId = Number(match[1]);
      if (![...this.installations.values()].includes(installationId)) throw new ApiRefusal(404, 'Not Found');
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      const expiresAt = this.now() + this.tokenLifetimeMs;
      this.installationTokens.set(token, { installationId, expiresAt });
      this.git.otherTokens.add(token);
      return {
        status: 201,
        body: { token, expires_at: new Date(expiresAt).toISOString(), permissions: { issues: 'write' } },
      };
    });
    this.route('GET', new RegExp(`^${repo}/installation$`), (match, _body, _query, headers) => {
      const app = this.verifyJwt(headers.authorization);
      const id = this.installations.get(`${match[1]}/${match[2]}`);
      if (id === undefined) throw new ApiRefusal(404, 'Not Found');
      return { status: 200, body: { id, app_id: app.id, account: { login: match[1] } } };
    });
    this.route('POST', new RegExp(`^${repo}/check-runs$`), (match, body, _query, headers) => {
      this.requireInstallationToken(headers.authorization);
      const run = {
        id: this.nextId++,
        repository: `${match[1]}/${match[2]}`,
        name: String(body.name ?? ''),
        headSha: String(body.head_sha ?? ''),
        externalId: String(body.external_id ?? ''),
        detailsUrl: typeof body.details_url === 'string' ? body.details_url : undefined,
        status: String(body.status ?? 'queued'),
        output: body.output as { title?: string; summary?: string } | undefined,
        states: [String(body.status ?? 'queued')],
      };
      if (!run.name || !/^[0-9a-f]{40}$/.test(run.headSha)) throw new ApiRefusal(422, 'Validation Failed');
      this.checkRuns.push(run);
      return { status: 201, body: this.checkRunView(run) };
    });
    this.route('PATCH', new RegExp(`^${repo}/check-runs/(\\d+)$`), (match, body, _query, headers) => {
      this.requireInstallationToken(headers.authorization);
      const run = this.checkRuns.find((candidate) => candidate.id === Number(match[3]));
      if (!run) throw new ApiRefusal(404, 'Not Found');
      if (typeof body.status === 'string') run.status = body.status;
      if (typeof body.conclusion === 'string') {
        run.conclusion = body.conclusion;
        run.status = 'completed';
      }
      if (body.output) run.output = body.output as { title?: string; summary?: string };
      run.states.push(run.conclusion ? `${run.status}:${run.conclusion}` : run.status);
      return { status: 200, body: this.checkRunView(run) };
    });
    this.route('GET', new RegExp(`^${repo}/commits/([^/]+)/check-runs$`), (match, _body, query) => {
      const found = this.checkRuns.filter(
        (run) =>
          run.repository === `${match[1]}/${match[2]}` &&
          run.headSha === match[3] &&
          (!query.get('check_name') || run.name === query.get('check_name')),
      );
      return {
        status: 200,
        body: { total_count: found.length, check_runs: found.map((run) => this.checkRunView(run)) },
      };
    });
    this.route('GET', /^\/user$/, () => ({
      status: 200,
      body: { login: this.botLogin, id: 1, type: 'User' },
    }));
    this.route('GET', new RegExp(`^${repo}/collaborators/([^/]+)/permission$`), (match) => {
      const permission = this.permissions.get(match[3]!.toLowerCase()) ?? 'none';
      return { status: 200, body: { permission, role_name: permission, user: { login: match[3] } } };
    });
    this.route('GET', new RegExp(`^${repo}/pulls/(\\d+)$`), (match) => {
      const base = `${match[1]}/${match[2]}`;
      const pull = this.pulls.get(`${base}#${match[3]}`);
      if (!pull) throw new ApiRefusal(404, 'Not Found');
      return {
        status: 200,
        body: {
          number: Number(match[3]),
          state: 'open',
          head: { sha: pull.sha, ref: pull.branch, repo: { full_name: pull.repository } },
          base: { ref: 'main', repo: { full_name: base } },
        },
      };
    });
    this.route('GET', new RegExp(`^${repo}/pulls$`), (match, _body, query) => {
      const repository = `${match[1]}/${match[2]}`;
      const head = query.get('head') ?? '';
      const matching = this.opened.filter(
        (pull) => pull.repository === repository && `${match[1]}:${pull.head}` === head,
      );
      return { status: 200, body: matching.map((pull) => this.pullView(pull)) };
    });
    this.route('POST', new RegExp(`^${repo}/pulls$`), (match, body) => {
      const repository = `${match[1]}/${match[2]}`;
      const head = String(body.head ?? '');
      if (!this.git.hasBranch(repository, head))
        throw new ApiRefusal(422, 'Validation Failed: head does not exist');
      if (this.opened.some((pull) => pull.repository === repository && pull.head === head))
        throw new ApiRefusal(
          422,
          `Validation Failed: A pull request already exists for ${match[1]}:${head}.`,
        );
      const pull = {
        repository,
        number: this.nextId++,
        head,
        base: String(body.base ?? ''),
        title: String(body.title ?? ''),
        body: String(body.body ?? ''),
      };
      this.opened.push(pull);
      return { status: 201, body: this.pullView(pull) };
    });
    this.route('POST', new RegExp(`^${repo}/issues/(\\d+)/comments$`), (match, body) => {
      const text = this.textOf(body);
      const comment: FakeComment = {
        id: this.nextId++,
        thread: `${match[1]}/${match[2]}#${match[3]}`,
        author: this.botLogin,
        body: text,
        history: [text],
        edits: 0,
      };
      this.comments.push(comment);
      return { status: 201, body: this.view(comment) };
    });
    this.route('PATCH', new RegExp(`^${repo}/issues/comments/(\\d+)$`), (match, body) => {
      const comment = this.comments.find((candidate) => candidate.id === Number(match[3]));
      if (!comment) throw new ApiRefusal(404, 'Not Found');
      comment.body = this.textOf(body);
      comment.history.push(comment.body);
      comment.edits++;
      return { status: 200, body: this.view(comment) };
    });
    this.route('GET', new RegExp(`^${repo}/issues/(\\d+)/comments$`), (match) => ({
      status: 200,
      body: this.comments
        .filter((comment) => comment.thread === `${match[1]}/${match[2]}#${match[3]}`)
        .map((comment) => this.view(comment)),
    }));
    this.route('POST', new RegExp(`^${repo}/issues/comments/(\\d+)/reactions$`), (match, body) =>
      this.react(`comment:${match[3]}`, String(body.content)),
    );
    this.route('POST', new RegExp(`^${repo}/issues/(\\d+)/reactions$`), (match, body) =>
      this.react(`issue:${match[3]}`, String(body.content)),
    );
  }

  /** A reaction, once per content and subject: GitHub answers a repeat with 200 and the one it has. */
  private react(on: string, content: string): RouteAnswer {
    const had = this.reactions.find((reaction) => reaction.on === on && reaction.content === content);
    if (had) return { status: 200, body: { id: had.id, content } };
    const reaction = { on, content, id: this.nextId++ };
    this.reactions.push(reaction);
    return { status: 201, body: { id: reaction.id, content } };
  }

  protected authorized(headers: IncomingMessage['headers'], path: string): boolean {
    // The App's routes check their JWT themselves (and say why one is refused).
    if (/^\/app(\/|$)/.test(path) || /^\/repos\/[^/]+\/[^/]+\/installation$/.test(path)) return true;
    const token = /^(?:token|Bearer) (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (token === GITHUB_TOKEN) return true;
    const installation = token === undefined ? undefined : this.installationTokens.get(token);
    return installation !== undefined && installation.expiresAt > this.now();
  }

  private now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Checks are written by Apps only: a personal token gets GitHub's 403. */
  private requireInstallationToken(authorization: string | undefined): void {
    const token = /^(?:token|Bearer) (.+)$/.exec(authorization ?? '')?.[1];
    if (!token || !this.installationTokens.has(token))
      throw new ApiRefusal(403, 'Resource not accessible by personal access token');
  }

  private checkRunView(run: FakeGitHub['checkRuns'][number]) {
    return {
      id: run.id,
      name: run.name,
      head_sha: run.headSha,
      external_id: run.externalId,
      details_url: run.detailsUrl ?? null,
      status: run.status,
      conclusion: run.conclusion ?? null,
      output: run.output ?? {},
    };
  }

  /** Every installation token issued so far stops working, as an expired one does. */
  expireInstallationTokens(): void {
    for (const [token, installation] of this.installationTokens) {
      installation.expiresAt = this.now() - 1;
      this.git.otherTokens.delete(token);
    }
  }

  /** The App a JWT proves, as GitHub checks it: RS256 by the App's key, iss, iat and exp at most 10 minutes on. */
  private verifyJwt(authorization: string | undefined): FakeApp {
    const app = this.app;
    const jwt = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const parts = jwt?.split('.') ?? [];
    if (!app || parts.length !== 3) throw new ApiRefusal(401, 'A JSON web token could not be decoded');
    const [header, payload, signature] = parts as [string, string, string];
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(app.publicKey, Buffer.from(signature, 'base64url'));
    if (!valid) throw new ApiRefusal(401, 'A JSON web token could not be decoded');
    const alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string }).alg;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AppJwtClaims;
    const now = Math.floor(this.now() / 1000);
    if (alg !== 'RS256') throw new ApiRefusal(401, `'alg' must be RS256`);
    if (String(claims.iss) !== String(app.id))
      throw new ApiRefusal(401, `'Issuer' claim ('iss') must be an Integer`);
    if (!(claims.iat <= now + 30))
      throw new ApiRefusal(
        401,
        "'Issued at' claim ('iat') must be an Integer representing a time in the past",
      );
    if (!(claims.exp > now && claims.exp <= now + 600 + 30))
      throw new ApiRefusal(401, "'Expiration time' claim ('exp') is too far in the future");
    this.acceptedJwts.push(claims);
    return app;
  }

  /**
   * Opens (or pushes to) pull request `number` of a hosted repository with the commit `from` has
   * checked out, as GitHub does: the head lands in the base repository's refs/pull/<n>/head, also
   * for a pull request from a fork (`headRepository` another repository than `path`).
   */
  pushPull(path: string, number: number, from: string, headRepository = path): string {
    const sha = this.git.setRef(path, `refs/pull/${number}/head`, from);
    this.pulls.set(`${path}#${number}`, { sha, repository: headRepository, branch: `feature-${number}` });
    return sha;
  }

  /** A comment written by someone (not the bot), as the thread's history. */
  addHumanComment(thread: string, author: string, body: string): FakeComment {
    const comment = { id: this.nextId++, thread, author, body, history: [body], edits: 0 };
    this.comments.push(comment);
    return comment;
  }

  /** The bot's comments in a thread (`owner/repo#12`). */
  botComments(thread: string): FakeComment[] {
    return this.comments.filter((comment) => comment.thread === thread && comment.author === this.botLogin);
  }

  private textOf(body: Record<string, unknown>): string {
    if (typeof body.body !== 'string' || body.body.length === 0)
      throw new ApiRefusal(422, 'Validation Failed');
    if (body.body.length > 65_536)
      throw new ApiRefusal(422, 'Body is too long (maximum is 65536 characters)');
    return body.body;
  }

  private pullView(pull: { repository: string; number: number; head: string; base: string }) {
    return {
      number: pull.number,
      html_url: `https://github.com/${pull.repository}/pull/${pull.number}`,
      head: { ref: pull.head },
      base: { ref: pull.base },
    };
  }

  private view(comment: FakeComment) {
    return {
      id: comment.id,
      body: comment.body,
      user: { login: comment.author, id: comment.author === this.botLogin ? 1 : 2, type: 'User' },
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
  }
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const fake = new FakeGitHub();
  await fake.listen();
  return fake;
}
