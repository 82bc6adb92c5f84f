/**
 * A fake of GitLab's REST API (v4) on loopback, for the real GitBeaker client: the calls the bot
 * makes (the current user, project membership, notes on issues and merge requests, award emoji),
 * answered with GitLab's shapes and statuses, each recorded. Webhooks are signed as GitLab signs
 * them: the X-Gitlab-Token secret, and the Standard Webhooks headers with a signing token.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiRefusal, FakeCodeHostServer, type FakeComment, type FaultAnswer } from './code-host-fake.js';

export { serverError, tooManyRequests } from './code-host-fake.js';

export const GITLAB_TOKEN = 'glpat-fake-token-for-tests';

/**
 * GitLab's answer when a rate limit is used up: 429 with RateLimit-Remaining 0 and the window's
 * end in RateLimit-Reset (epoch seconds), and no Retry-After.
 */
export function rateLimitUsedUp(resetAtEpochSeconds: number): FaultAnswer {
  return {
    status: 429,
    headers: {
      'ratelimit-limit': '600',
      'ratelimit-observed': '601',
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(resetAtEpochSeconds),
      'ratelimit-resettime': new Date(resetAtEpochSeconds * 1000).toUTCString(),
    },
    body: { message: 'Retry later' },
  };
}

/** webhook-id, webhook-timestamp and webhook-signature for a body, as GitLab's signed webhooks send them. */
export function signGitLab(
  signingSecret: string,
  id: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const key = Buffer.from(signingSecret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

export class FakeGitLab extends FakeCodeHostServer {
  readonly bot = { username: 'cairn-bot', id: 1 };
  /** user id -> access level (30 Developer, 20 Reporter); anyone else is not a member. */
  readonly members = new Map<number, number>();
  readonly notes: FakeComment[] = [];
  readonly awards: Array<{ on: string; name: string }> = [];
  /** `group/project!3` -> the merge request's head commit and the project ids it goes from and to. */
  readonly mergeRequests = new Map<
    string,
    { sha: string; sourceProjectId: number; targetProjectId: number }
  >();
  /** Merge requests the bot opened: the project, iid, source and target branches, title and description. */
  readonly opened: Array<{
    project: string;
    iid: number;
    source: string;
    target: string;
    title: string;
    description: string;
  }> = [];
  private nextId = 3000;

  constructor() {
    super({ tokenUser: 'oauth2', token: GITLAB_TOKEN, realm: 'GitLab' });
    const project = '/api/v4/projects/([^/]+(?:/[^/]+)*?)';
    const thread = `${project}/(issues|merge_requests)/(\\d+)`;
    const key = (match: RegExpExecArray) =>
      `${match[1]}${match[2] === 'merge_requests' ? '!' : '#'}${match[3]}`;
    this.route('GET', /^\/api\/v4\/user$/, () => ({ status: 200, body: { ...this.bot, name: 'Cairn' } }));
    this.route('GET', new RegExp(`^${project}/members/all/(\\d+)$`), (match) => {
      const level = this.members.get(Number(match[2]));
      if (level === undefined) throw new ApiRefusal(404, '404 Not found');
      return { status: 200, body: { id: Number(match[2]), access_level: level } };
    });
    this.route('GET', new RegExp(`^${project}/merge_requests$`), (match, _body, query) => {
      const matching = this.opened.filter(
        (request) => request.project === match[1] && request.source === query.get('source_branch'),
      );
      return { status: 200, body: matching.map((request) => this.mergeRequestView(request)) };
    });
    this.route('POST', new RegExp(`^${project}/merge_requests$`), (match, body) => {
      const source = String(body.source_branch ?? '');
      if (!this.git.hasBranch(match[1]!, source)) throw new ApiRefusal(400, 'Source branch does not exist');
      const request = {
        project: match[1]!,
        iid: this.nextId++,
        source,
        target: String(body.target_branch ?? ''),
        title: String(body.title ?? ''),
        description: String(body.description ?? ''),
      };
      this.opened.push(request);
      return { status: 201, body: this.mergeRequestView(request) };
    });
    this.route('GET', new RegExp(`^${project}/merge_requests/(\\d+)$`), (match) => {
      const found = this.mergeRequests.get(`${match[1]}!${match[2]}`);
      if (!found) throw new ApiRefusal(404, '404 Not found');
      return {
        status: 200,
        body: {
          iid: Number(match[2]),
          state: 'opened',
          sha: found.sha,
          source_branch: `feature-${match[2]}`,
          target_branch: 'main',
          source_project_id: found.sourceProjectId,
          target_project_id: found.targetProjectId,
        },
      };
    });
    this.route('POST', new RegExp(`^${thread}/notes$`), (match, body) => {
      const text = this.textOf(body);
      const note = {
        id: this.nextId++,
        thread: key(match),
        author: this.bot.username,
        body: text,
        history: [text],
        edits: 0,
      };
      this.notes.push(note);
      return { status: 201, body: this.view(note) };
    });
    this.route('PUT', new RegExp(`^${thread}/notes/(\\d+)$`), (match, body) => {
      const note = this.notes.find(
        (candidate) => candidate.id === Number(match[4]) && candidate.thread === key(match),
      );
      if (!note) throw new ApiRefusal(404, '404 Not found');
      note.body = this.textOf(body);
      note.history.push(note.body);
      note.edits++;
      return { status: 200, body: this.view(note) };
    });
    this.route('GET', new RegExp(`^${thread}/notes$`), (match) => ({
      status: 200,
      body: this.notes
        .filter((note) => note.thread === key(match))
        .reverse()
        .map((note) => this.view(note)),
    }));
    this.route('POST', new RegExp(`^${thread}/notes/(\\d+)/award_emoji$`), (match, body, query) => {
      this.awards.push({ on: `note:${match[4]}`, name: String(body.name ?? query.get('name')) });
      return { status: 201, body: { id: this.nextId++, name: body.name } };
    });
    this.route('POST', new RegExp(`^${thread}/award_emoji$`), (match, body, query) => {
      this.awards.push({ on: key(match), name: String(body.name ?? query.get('name')) });
      return { status: 201, body: { id: this.nextId++, name: body.name } };
    });
  }

  protected authorized(headers: IncomingMessage['headers']): boolean {
    return headers['private-token'] === GITLAB_TOKEN || headers.authorization === `Bearer ${GITLAB_TOKEN}`;
  }

  /**
   * Opens (or pushes to) merge request `iid` of a hosted project with the commit `from` has checked
   * out, as GitLab does: the head lands in the target project's refs/merge-requests/<iid>/head,
   * also from a fork (`sourceProjectId` another project's id than `projectId`).
   */
  pushMergeRequest(
    path: string,
    iid: number,
    from: string,
    projectId: number,
    sourceProjectId = projectId,
  ): string {
    const sha = this.git.setRef(path, `refs/merge-requests/${iid}/head`, from);
    const found = { sha, sourceProjectId, targetProjectId: projectId };
    // The API takes the project's path or its id.
    this.mergeRequests.set(`${path}!${iid}`, found);
    this.mergeRequests.set(`${projectId}!${iid}`, found);
    return sha;
  }

  /** The bot's notes in a thread (`group/project#12`, `group/project!3`). */
  botNotes(thread: string): FakeComment[] {
    return this.notes.filter((note) => note.thread === thread && note.author === this.bot.username);
  }

  private textOf(body: Record<string, unknown>): string {
    if (typeof body.body !== 'string' || body.body.length === 0) throw new ApiRefusal(400, 'body is missing');
    return body.body;
  }

  private mergeRequestView(request: { project: string; iid: number; source: string; target: string }) {
    return {
      iid: request.iid,
      web_url: `https://gitlab.example/${request.project}/-/merge_requests/${request.iid}`,
      source_branch: request.source,
      target_branch: request.target,
    };
  }

  private view(note: FakeComment) {
    return {
      id: note.id,
      body: note.body,
      system: false,
      author: { username: note.author, id: note.author === this.bot.username ? this.bot.id : 2 },
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
  }
}

export async function startFakeGitLab(): Promise<FakeGitLab> {
  const fake = new FakeGitLab();
  await fake.listen();
  return fake;
}
