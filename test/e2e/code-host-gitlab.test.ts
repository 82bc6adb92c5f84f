import { expect } from 'chai';
import { codeHostWorkflowId } from '../../domain/codehost/code-host-work.js';
import { databaseKinds } from '../support/databases.js';
import { startLiveCore, type LiveCore } from '../support/live-core.js';
import { captureLogs } from '../support/logs.js';
import {
  GITLAB_TOKEN,
  rateLimitUsedUp,
  signGitLab,
  startFakeGitLab,
  tooManyRequests,
  type FakeGitLab,
} from '../support/fakes/gitlab-api.js';

const TOKEN_SECRET = 'gitlab-token-secret';
// A Standard Webhooks signing token: whsec_ and 32 random bytes in base64.
const SIGNING_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const PROJECT = 'acme/platform/api';

let noteIds = 8000;
/** Where the project is cloned from: the fake GitLab's git over HTTP, once it listens. */
let gitBase = 'https://gitlab.example';

/** A Note Hook payload on an issue or a merge request, with the fields GitLab sends that the bot reads. */
function notePayload(options: {
  iid: number;
  note: string;
  user?: { id: number; username: string };
  mergeRequest?: boolean;
}) {
  const user = options.user ?? { id: 42, username: 'alice' };
  const thread = {
    iid: options.iid,
    title: `Thread ${options.iid}`,
    description: 'Logins fail since Monday.',
    url: 'https://gitlab.example/x',
  };
  return {
    object_kind: 'note',
    event_type: 'note',
    user: { ...user, name: user.username },
    project: {
      id: 77,
      path_with_namespace: PROJECT,
      git_http_url: `${gitBase}/${PROJECT}.git`,
      default_branch: 'main',
    },
    object_attributes: {
      id: noteIds++,
      note: options.note,
      noteable_type: options.mergeRequest ? 'MergeRequest' : 'Issue',
      updated_at: '2026-11-26 10:00:00 UTC',
      url: 'https://gitlab.example/x#note',
    },
    ...(options.mergeRequest
      ? { merge_request: { ...thread, source_project_id: 77, target_project_id: 77 } }
      : { issue: thread }),
  };
}

/**
 * The GitLab door end to end: webhooks with the secret token and the signed headers reach the API;
 * the live workers answer through the real GitBeaker client against a fake GitLab API on loopback.
 */
for (const kind of databaseKinds()) {
  describe(`GitLab webhooks (fake GitLab API, live workers, fake assistant) on ${kind.name}`, function () {
    this.timeout(3 * 60_000);
    let gitlab: FakeGitLab;
    let core: LiveCore;
    let deliveries = 0;
    /** Merge request !3's head commit. */
    let head = '';
    const logs = captureLogs('debug');

    async function deliver(
      payload: unknown,
      options: { token?: string; timestamp?: number; signed?: boolean; id?: string } = {},
    ) {
      const body = JSON.stringify(payload);
      const id = options.id ?? `msg_${deliveries++}`;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-gitlab-event': 'Note Hook',
        'x-gitlab-token': options.token ?? TOKEN_SECRET,
        ...(options.signed === false ? {} : signGitLab(SIGNING_SECRET, id, body, options.timestamp)),
      };
      const response = await fetch(`${core.app.url}/webhooks/gitlab`, { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    before(async () => {
      gitlab = await startFakeGitLab();
      core = await startLiveCore(
        kind,
        {
          'README.md': '# api\n',
          '.cairn/workflows/tidy.yaml':
            'name: tidy\ndescription: passes\nnodes:\n  - id: look\n    bash: ls\n',
          '.cairn/workflows/broken.yaml':
            'name: broken\ndescription: fails\nnodes:\n  - id: fail\n    bash: echo nope >&2; exit 3\n',
        },
        {
          env: {
            GITLAB_TOKEN,
            GITLAB_URL: gitlab.url,
            GITLAB_WEBHOOK_SECRET: TOKEN_SECRET,
            GITLAB_WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
            GITLAB_BOT_MENTION: 'cairn-bot',
            GITLAB_ALLOWED_USERS: 'Alice,bob',
            PUBLIC_URL: 'https://cairn.example.com/',
          },
          logger: logs.logger,
        },
      );
      // The first mention clones the project from the fake GitLab with the token; merge request
      // !3 is a branch of it, worked on at its head.
      gitlab.git.host(PROJECT, core.repo.path);
      head = gitlab.pushMergeRequest(PROJECT, 3, core.repo.path, 77);
      gitBase = gitlab.url;
    });

    after(async () => {
      await core?.close();
      await gitlab?.close();
    });

    it('answers a mention on a merge request in one note, edited in place, after a 👀 award', async () => {
      const payload = notePayload({
        iid: 3,
        mergeRequest: true,
        note: '@Cairn-Bot please look\n[fake:reply Looks fine to me.]',
      });
      expect(await deliver(payload)).to.deep.equal({ status: 202, body: { status: 'accepted' } });
      const notes = await gitlab.waitFor(() => {
        const found = gitlab.botNotes(`${PROJECT}!3`);
        return found.some((note) => note.body === 'Looks fine to me.') ? found : undefined;
      }, 'the answer');
      expect(notes).to.have.length(1);
      expect(notes[0]!.edits).to.be.at.least(1);
      expect(gitlab.awards).to.deep.include({ on: `note:${payload.object_attributes.id}`, name: 'eyes' });
    });

    it('answers an edited note as a new request, its 👀 given already', async () => {
      const first = notePayload({ iid: 8, note: '@cairn-bot [fake:reply first answer]' });
      await deliver(first);
      await gitlab.waitFor(
        () => gitlab.botNotes(`${PROJECT}#8`).some((note) => note.body === 'first answer'),
        'the first answer',
      );
      const edited = {
        ...first,
        object_attributes: {
          ...first.object_attributes,
          note: '@cairn-bot [fake:reply second answer]',
          updated_at: '2026-11-26 10:05:00 UTC',
        },
      };
      expect((await deliver(edited)).body.status).to.equal('accepted');
      await gitlab.waitFor(
        () => gitlab.botNotes(`${PROJECT}#8`).some((note) => note.body === 'second answer'),
        'the second answer',
      );
      expect(gitlab.botNotes(`${PROJECT}#8`)).to.have.length(2);
      // GitLab refused the second award (the same user, the same note) with a 404: not a failure.
      const awards = gitlab.callsOf('POST', new RegExp(`/notes/${first.object_attributes.id}/award_emoji$`));
      expect(awards.map((call) => call.status)).to.deep.equal([201, 404]);
    });

    it('posts the answer once, after the wait a 429 asked for with Retry-After', async () => {
      const notes = new RegExp(`/projects/${PROJECT}/issues/6/notes$`);
      gitlab.failNext('POST', notes, tooManyRequests(2));
      await deliver(notePayload({ iid: 6, note: '@cairn-bot\n[fake:reply after the wait]' }));
      await gitlab.waitFor(
        () => gitlab.botNotes(`${PROJECT}#6`).some((note) => note.body === 'after the wait'),
        'the answer',
      );
      expect(gitlab.botNotes(`${PROJECT}#6`)).to.have.length(1);
      const posts = gitlab.callsOf('POST', notes);
      // One refused call, then the one that posted: no burst of retries in between.
      expect(posts.map((call) => call.status)).to.deep.equal([429, 201]);
      expect(posts[1]!.at - posts[0]!.at).to.be.at.least(2_000);
    });

    it('posts the answer once, after the RateLimit-Reset of a used-up rate limit', async () => {
      const notes = new RegExp(`/projects/${PROJECT}/issues/7/notes$`);
      const resetAt = Math.floor(Date.now() / 1000) + 3;
      gitlab.failNext('POST', notes, rateLimitUsedUp(resetAt));
      await deliver(notePayload({ iid: 7, note: '@cairn-bot\n[fake:reply after the reset]' }));
      await gitlab.waitFor(
        () => gitlab.botNotes(`${PROJECT}#7`).some((note) => note.body === 'after the reset'),
        'the answer',
      );
      expect(gitlab.botNotes(`${PROJECT}#7`)).to.have.length(1);
      const posts = gitlab.callsOf('POST', notes);
      expect(posts.map((call) => call.status)).to.deep.equal([429, 201]);
      expect(posts[1]!.at).to.be.at.least(resetAt * 1000);
    });

    it('refuses a wrong token, a forged signature and a stale timestamp with 401', async () => {
      const payload = notePayload({ iid: 4, note: '@cairn-bot [fake:reply no]' });
      const wrongToken = await deliver(payload, { token: 'guess' });
      const unsigned = await deliver(payload, { signed: false });
      const stale = await deliver(payload, { timestamp: Math.floor(Date.now() / 1000) - 3_600 });
      for (const answer of [wrongToken, unsigned, stale]) {
        expect(answer.status).to.equal(401);
        expect(answer.body.code).to.equal('invalid_signature');
      }
      expect(stale.body.detail).to.contain('webhook-timestamp');
      expect(gitlab.calls.some((call) => call.path.includes('/issues/4/'))).to.equal(false);
    });

    it('ignores a user who is not on GITLAB_ALLOWED_USERS (compared case-insensitively) without a word', async () => {
      const stranger = notePayload({
        iid: 5,
        note: '@cairn-bot [fake:reply no]',
        user: { id: 9, username: 'mallory' },
      });
      const allowed = notePayload({
        iid: 5,
        note: '@cairn-bot\n[fake:reply yes]',
        user: { id: 10, username: 'BOB' },
      });
      await deliver(stranger);
      await deliver(allowed);
      const outcome = await core.workers.temporal.client.workflow
        .getHandle(
          codeHostWorkflowId({
            platform: 'gitlab',
            requestKey: `${PROJECT}#5:comment:${stranger.object_attributes.id}@2026-11-26 10:00:00 UTC`,
          }),
        )
        .result();
      expect(outcome).to.equal('refused');
      await gitlab.waitFor(
        () => gitlab.botNotes(`${PROJECT}#5`).some((note) => note.body === 'yes'),
        'the answer to bob',
      );
      expect(gitlab.botNotes(`${PROJECT}#5`)).to.have.length(1);
      expect(gitlab.awards.map((award) => award.on)).to.not.include(`note:${stranger.object_attributes.id}`);
    });
    /** The workflow runs of `workflow` that have ended, oldest first. */
    async function endedRuns(workflow: string) {
      return (await core.test.db
        .knex('workflow_runs')
        .where({ workflow_name: workflow })
        .whereIn('status', ['completed', 'failed', 'cancelled'])
        .orderBy('created_at')
        .select('id', 'status')) as Array<{ id: string; status: string }>;
    }

    /** The ended runs of `workflow`, once there are `count` of them. */
    async function endedRunsReaching(workflow: string, count: number) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ended = await endedRuns(workflow);
        if (ended.length >= count || Date.now() > deadline) return ended;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    const statusPosts = () => gitlab.callsOf('POST', new RegExp(`^/api/v4/projects/${PROJECT}/statuses/`));

    it("shows a workflow run started in a merge request as a commit status on its head: running, then the run's outcome", async () => {
      await deliver(notePayload({ iid: 3, mergeRequest: true, note: '/workflow run tidy' }));
      const passed = await gitlab.waitFor(
        () => gitlab.statuses.find((status) => status.name === 'cairn/tidy' && status.status === 'success'),
        'the commit status of tidy to succeed',
      );
      const [run] = await endedRuns('tidy');
      expect(run?.status).to.equal('completed');
      expect(passed).to.include({ project: PROJECT, sha: head, ref: 'main', description: 'tidy completed' });
      expect(passed.states).to.deep.equal(['running', 'success']);
      expect(passed.targetUrl).to.equal(`https://cairn.example.com/runs/${run!.id}`);
      // Set through POST /projects/:id/statuses/:sha, the end on the same ref and pipeline as the start.
      const posted = statusPosts().map((call) => ({ path: call.path, status: call.status, ...call.body }));
      expect(posted).to.have.length(2);
      expect(posted[0]).to.deep.include({
        path: `/api/v4/projects/${PROJECT}/statuses/${head}`,
        status: 201,
        state: 'running',
        name: 'cairn/tidy',
        description: 'tidy is running',
      });
      expect(posted[1]).to.deep.include({
        state: 'success',
        name: 'cairn/tidy',
        ref: 'main',
        pipeline_id: passed.pipelineId,
        status: 201,
      });

      await deliver(notePayload({ iid: 3, mergeRequest: true, note: '/workflow run broken' }));
      const failed = await gitlab.waitFor(
        () => gitlab.statuses.find((status) => status.name === 'cairn/broken' && status.status === 'failed'),
        'the commit status of broken to fail',
      );
      expect(failed.sha).to.equal(head);
      expect(failed.states).to.deep.equal(['running', 'failed']);
      expect(failed.description).to.equal('broken failed');
      // One status per workflow run, each set twice.
      expect(gitlab.statuses.map((status) => status.name)).to.deep.equal(['cairn/tidy', 'cairn/broken']);
      expect(statusPosts()).to.have.length(4);
    });

    it('logs a 403 on commit statuses once per project, and the runs go on without a status', async () => {
      gitlab.statusesRefused.add(PROJECT);
      const statusesBefore = gitlab.statuses.length;
      const postsBefore = statusPosts().length;
      const endedBefore = (await endedRuns('tidy')).length;
      try {
        for (const round of [1, 2]) {
          await deliver(notePayload({ iid: 3, mergeRequest: true, note: '/workflow run tidy' }));
          const ended = await endedRunsReaching('tidy', endedBefore + round);
          expect(ended.map((run) => run.status)).to.deep.equal(Array(endedBefore + round).fill('completed'));
          // Each run asks once: a refusal is not retried.
          await gitlab.waitFor(
            () => statusPosts().length === postsBefore + round,
            `the status of run ${round} to be asked for`,
          );
        }
        expect(
          statusPosts()
            .slice(postsBefore)
            .map((call) => call.status),
        ).to.deep.equal([403, 403]);
        const refusals = logs.lines.filter((line) => line.event === 'code_host.commit_statuses_refused');
        expect(refusals).to.have.length(1);
        expect(refusals[0]!.repository).to.equal(PROJECT);
        expect(gitlab.statuses).to.have.length(statusesBefore);
        expect(logs.text()).to.not.contain(GITLAB_TOKEN);
      } finally {
        gitlab.statusesRefused.delete(PROJECT);
      }
    });
  });
}
