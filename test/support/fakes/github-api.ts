/**
 * A fake of GitHub's REST API on loopback, for the real Octokit client: the calls the bot makes
 * (the authenticated user, collaborator permissions, issue comments, reactions), answered with
 * GitHub's shapes and statuses, each recorded. Webhook payloads are signed as GitHub signs them.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiRefusal, FakeCodeHostServer, type FakeComment } from './code-host-fake.js';

export { serverError, tooManyRequests } from './code-host-fake.js';

export const GITHUB_TOKEN = 'ghp_fake_token_for_tests';

/** X-Hub-Signature-256 of a body: what GitHub sends with every delivery. */
export function signGitHub(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export class FakeGitHub extends FakeCodeHostServer {
  readonly botLogin = 'cairn-bot';
  /** login (lower case) -> permission; anyone else is not a collaborator. */
  readonly permissions = new Map<string, string>();
  readonly comments: FakeComment[] = [];
  readonly reactions: Array<{ on: string; content: string }> = [];
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
    this.route('POST', new RegExp(`^${repo}/issues/comments/(\\d+)/reactions$`), (match, body) => {
      this.reactions.push({ on: `comment:${match[3]}`, content: String(body.content) });
      return { status: 201, body: { id: this.nextId++, content: body.content } };
    });
    this.route('POST', new RegExp(`^${repo}/issues/(\\d+)/reactions$`), (match, body) => {
      this.reactions.push({ on: `issue:${match[3]}`, content: String(body.content) });
      return { status: 201, body: { id: this.nextId++, content: body.content } };
    });
  }

  protected authorized(headers: IncomingMessage['headers']): boolean {
    return (
      headers.authorization === `token ${GITHUB_TOKEN}` || headers.authorization === `Bearer ${GITHUB_TOKEN}`
    );
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
