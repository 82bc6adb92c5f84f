/**
 * A fake of GitLab's REST API (v4) on loopback, for the real GitBeaker client: the calls the bot
 * makes (the current user, project membership, notes on issues and merge requests, award emoji,
 * commit statuses), answered with GitLab's shapes and statuses, each recorded. Webhooks are
 * signed as GitLab signs them: the X-Gitlab-Token secret, and the Standard Webhooks headers with a
 * signing token.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  ApiRefusal,
  FakeCodeHostServer,
  type FakeComment,
  type FaultAnswer,
  type RouteAnswer,
} from './code-host-fake.js';

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

/** What a state asks of a commit status: GitLab's state-machine event and the states it may leave. */
const STATUS_EVENTS: Record<string, { event: string; from: string[] }> = {
  pending: { event: 'enqueue', from: ['created'] },
  running: { event: 'run', from: ['created', 'pending'] },
  success: { event: 'success', from: ['created', 'pending', 'running'] },
  failed: { event: 'drop', from: ['created', 'pending', 'running'] },
  canceled: { event: 'cancel', from: ['created', 'pending', 'running'] },
  skipped: { event: 'skip', from: ['created', 'pending'] },
};

/** A commit status set through the API, as it stands, with every state it went through. */
export interface FakeCommitStatus {
  id: number;
  project: string;
  sha: string;
  ref: string;
  name: string;
  status: string;
  pipelineId: number;
  description?: string;
  targetUrl?: string;
  states: string[];
  /** A later status of the same name in the pipeline took its place (GitLab's `retried`). */
  retried: boolean;
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
  readonly statuses: FakeCommitStatus[] = [];
  /** Projects whose commit statuses the token may not set (a Reporter, a token without the api scope): 403. */
  readonly statusesRefused = new Set<string>();
  /** Pipelines of commits: GitLab makes an external one for a status on a commit that has none. */
  private readonly pipelines: Array<{ id: number; project: string; sha: string; ref: string }> = [];
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
    this.route('POST', new RegExp(`^${project}/statuses/([^/]+)$`), (match, body) =>
      this.setStatus(match[1]!, match[2]!, body),
    );
    this.route(
      'GET',
      new RegExp(`^${project}/repository/commits/([^/]+)/statuses$`),
      (match, _body, query) => {
        if (!this.git.hasCommit(match[1]!, match[2]!)) throw new ApiRefusal(404, '404 Commit Not Found');
        const found = this.statuses.filter(
          (status) =>
            status.project === match[1] &&
            status.sha === match[2] &&
            (query.get('all') === 'true' || !status.retried) &&
            (!query.get('ref') || status.ref === query.get('ref')) &&
            (!query.get('name') || status.name === query.get('name')),
        );
        return { status: 200, body: found.map((status) => this.statusView(status)) };
      },
    );
    this.route('POST', new RegExp(`^${thread}/notes/(\\d+)/award_emoji$`), (match, body, query) =>
      this.award(`note:${match[4]}`, String(body.name ?? query.get('name'))),
    );
    this.route('POST', new RegExp(`^${thread}/award_emoji$`), (match, body, query) =>
      this.award(key(match), String(body.name ?? query.get('name'))),
    );
  }

  /** An award emoji, once per name and awardable: GitLab's API refuses a second one with a 404. */
  private award(on: string, name: string): RouteAnswer {
    if (this.awards.some((award) => award.on === on && award.name === name))
      throw new ApiRefusal(404, '404 Award Emoji ["Name has already been taken"] Not Found');
    this.awards.push({ on, name });
    return { status: 201, body: { id: this.nextId++, name } };
  }

  /**
   * POST /projects/:id/statuses/:sha as GitLab's CreateCommitStatusService does it: the status is
   * found by name and ref among the running or pending ones of the commit's newest pipeline (or
   * the one named), or made; a state its state machine cannot reach from there is a 400.
   */
  private setStatus(project: string, sha: string, body: Record<string, unknown>): RouteAnswer {
    if (this.statusesRefused.has(project)) throw new ApiRefusal(403, '403 Forbidden');
    const state = String(body.state ?? '');
    const transition = STATUS_EVENTS[state];
    if (!transition) return { status: 400, body: { error: 'state does not have a valid value' } };
    if (!this.git.hasCommit(project, sha)) throw new ApiRefusal(404, '404 Commit Not Found');
    const askedRef = typeof body.ref === 'string' ? body.ref : undefined;
    const askedPipeline = body.pipeline_id === undefined ? undefined : Number(body.pipeline_id);
    const matching = this.pipelines
      .filter(
        (pipeline) =>
          pipeline.project === project &&
          pipeline.sha === sha &&
          (askedRef === undefined || pipeline.ref === askedRef) &&
          (askedPipeline === undefined || pipeline.id === askedPipeline),
      )
      .at(-1);
    if (askedPipeline !== undefined && !matching)
      throw new ApiRefusal(404, '404 Pipeline for pipeline_id, sha and ref Not Found');
    const ref = askedRef ?? matching?.ref ?? this.git.branchesContaining(project, sha)[0];
    if (!ref) throw new ApiRefusal(404, '404 References for commit Not Found');
    const pipeline = matching ?? { id: this.nextId++, project, sha, ref };
    if (!matching) this.pipelines.push(pipeline);
    const name = String(body.name ?? body.context ?? 'default');
    const found = this.statuses.find(
      (status) =>
        status.pipelineId === pipeline.id &&
        status.name === name &&
        status.ref === ref &&
        (status.status === 'running' || status.status === 'pending'),
    );
    const status: FakeCommitStatus = found ?? {
      id: this.nextId++,
      project,
      sha,
      ref,
      name,
      status: 'created',
      pipelineId: pipeline.id,
      states: [],
      retried: false,
    };
    if (!transition.from.includes(status.status)) {
      const { event } = transition;
      throw new ApiRefusal(
        400,
        `Cannot transition status via :${event} from :${status.status} (Reason(s): Status cannot transition via "${event}")`,
      );
    }
    status.status = state;
    status.states.push(state);
    if (typeof body.description === 'string') status.description = body.description;
    if (typeof body.target_url === 'string') status.targetUrl = body.target_url;
    if (!found) {
      for (const older of this.statuses)
        if (older.pipelineId === pipeline.id && older.name === name) older.retried = true;
      this.statuses.push(status);
    }
    return { status: 201, body: this.statusView(status) };
  }

  private statusView(status: FakeCommitStatus) {
    return {
      id: status.id,
      sha: status.sha,
      ref: status.ref,
      status: status.status,
      name: status.name,
      target_url: status.targetUrl ?? null,
      description: status.description ?? null,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      allow_failure: false,
      coverage: null,
      pipeline_id: status.pipelineId,
      author: { username: this.bot.username, id: this.bot.id },
    };
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
