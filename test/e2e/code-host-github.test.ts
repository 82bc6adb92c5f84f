import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeHostWorkflowId } from '../../domain/codehost/code-host-work.js';
import { CodeHostMonitor } from '../../services/codehost/code-host-monitor.js';
import { codeHostWorkStarter, startUnstartedRequests } from '../../services/codehost/code-host-inbox.js';
import { recordCodeHostDeliveries } from '../../db/repositories/code-host-deliveries.js';
import { githubRequest } from '../../domain/codehost/github-payloads.js';
import { requestKey, type CodeHostRequest } from '../../domain/codehost/code-host-request.js';
import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import { startTestCoreApp } from '../support/core-app.js';
import { jsonClient } from '../support/json-client.js';
import {
  githubDoorEnv,
  serverError,
  signGitHub,
  startFakeGitHub,
  tooManyRequests,
  type FakeGitHub,
} from '../support/fakes/github-api.js';

const SECRET = 'webhook-secret-for-tests';
const REPO = 'acme/shop';

let commentIds = 5000;
/** Where the repository is cloned from: the fake GitHub's git over HTTP, once it listens. */
let gitBase = 'https://github.com';

interface CommentOptions {
  issue: number;
  body: string;
  login?: string;
  userType?: 'User' | 'Bot';
  commentId?: number;
  updatedAt?: string;
  pull?: boolean;
}

/** An issue_comment payload with the fields GitHub sends that the bot reads. */
function commentPayload(options: CommentOptions) {
  const login = options.login ?? 'alice';
  return {
    action: 'created',
    issue: {
      number: options.issue,
      title: `Issue ${options.issue}`,
      body: 'The checkout page is slow.',
      html_url: `https://github.com/${REPO}/issues/${options.issue}`,
      user: { login: 'reporter', id: 7, type: 'User' },
      ...(options.pull ? { pull_request: { url: 'x' } } : {}),
    },
    comment: {
      id: options.commentId ?? commentIds++,
      body: options.body,
      user: { login, id: login.length, type: options.userType ?? 'User' },
      updated_at: options.updatedAt ?? '2026-11-26T10:00:00Z',
      html_url: 'https://github.com/x',
    },
    repository: {
      full_name: REPO,
      clone_url: `${gitBase}/${REPO}.git`,
      default_branch: 'main',
      private: false,
    },
    sender: { login, id: login.length, type: options.userType ?? 'User' },
  };
}

/**
 * The GitHub door end to end: webhooks signed as GitHub signs them reach the API, are recorded and
 * answered by the live workers through the real Octokit client against a fake GitHub API on
 * loopback, with the fake assistant answering.
 */
for (const kind of databaseKinds()) {
  describe(`GitHub webhooks (fake GitHub API, live workers, fake assistant) on ${kind.name}`, function () {
    this.timeout(3 * 60_000);
    let github: FakeGitHub;
    let core: LiveCore;
    let deliveries = 0;
    let monitor: CodeHostMonitor | undefined;

    async function deliver(
      event: string,
      payload: unknown,
      options: { deliveryId?: string; signature?: string | null; url?: string } = {},
    ) {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': options.deliveryId ?? `delivery-${deliveries++}`,
        'user-agent': 'GitHub-Hookshot/test',
      };
      const signature = options.signature === undefined ? signGitHub(SECRET, body) : options.signature;
      if (signature !== null) headers['x-hub-signature-256'] = signature;
      const response = await fetch(`${options.url ?? core.app.url}/webhooks/github`, {
        method: 'POST',
        headers,
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    const thread = (issue: number) => `${REPO}#${issue}`;

    /** cairn_webhook_deliveries_total for GitHub and this outcome, as /metrics shows it. */
    async function deliveriesCounted(outcome: string): Promise<number> {
      const text = await (await fetch(`${core.app.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((row) =>
          row.startsWith(`cairn_webhook_deliveries_total{platform="github",outcome="${outcome}"}`),
        );
      return line ? Number(line.split(' ').at(-1)) : 0;
    }

    /** The bot's comments in a thread once `done` holds for them. */
    function botCommentsWhen(issue: number, done: (texts: string[]) => boolean, what: string) {
      return github.waitFor(() => {
        const comments = github.botComments(thread(issue));
        return done(comments.map((comment) => comment.body)) ? comments : undefined;
      }, what);
    }

    /** Lets the workers act on whatever was delivered, then proves it by answering a later mention. */
    async function settle(issue: number) {
      await deliver('issue_comment', commentPayload({ issue, body: '@cairn-bot\n[fake:reply settled]' }));
      await botCommentsWhen(issue, (texts) => texts.includes('settled'), 'the settling answer');
    }

    before(async () => {
      github = await startFakeGitHub();
      github.permissions.set('alice', 'write');
      github.permissions.set('reader', 'read');
      core = await startLiveCore(
        kind,
        { 'README.md': '# shop\n', '.cairn/workflows/gated.yaml': GATED_WORKFLOW },
        {
          env: githubDoorEnv(github, SECRET),
          app: { codeHostStates: () => monitor?.states() ?? {} },
        },
      );
      // The first mention clones the repository from the fake GitHub with the token.
      github.git.host(REPO, core.repo.path);
      gitBase = github.url;
      monitor = new CodeHostMonitor(core.context.environment, core.context.logger);
      await monitor.start();
    });

    after(async () => {
      monitor?.stop();
      await core?.close();
      await github?.close();
    });

    it('answers a mention in one tracking comment, edited in place, after a 👀 on the comment', async () => {
      const payload = commentPayload({
        issue: 1,
        body: '@cairn-bot why is it slow?\n[fake:reply Because of N+1 queries.]',
      });
      const answer = await deliver('issue_comment', payload);
      expect(answer).to.deep.equal({ status: 202, body: { status: 'accepted' } });
      const [comment] = await botCommentsWhen(
        1,
        (texts) => texts.includes('Because of N+1 queries.'),
        'the answer',
      );
      expect(github.botComments(thread(1))).to.have.length(1);
      expect(comment!.edits).to.be.at.least(1);
      expect(comment!.history[0]).to.contain('working on it');
      expect(github.reactions.map(({ on, content }) => ({ on, content }))).to.deep.include({
        on: `comment:${payload.comment.id}`,
        content: 'eyes',
      });
      // The assistant saw the thread: its title and description, then the question.
      const prompt = JSON.stringify(core.fakes.invocations().at(-1));
      expect(prompt)
        .to.contain('Issue 1')
        .and.contain('The checkout page is slow.')
        .and.contain('why is it slow?');
    });

    it('refuses a forged, a missing or a malformed signature with 401, and does nothing', async () => {
      const before = github.calls.length;
      const refusedBefore = await deliveriesCounted('refused');
      const payload = commentPayload({ issue: 2, body: '@cairn-bot [fake:reply no]' });
      const forged = await deliver('issue_comment', payload, {
        signature: signGitHub('not-the-secret', JSON.stringify(payload)),
      });
      const missing = await deliver('issue_comment', payload, { signature: null });
      const malformed = await deliver('issue_comment', payload, { signature: 'sha1=abc' });
      for (const answer of [forged, missing, malformed]) {
        expect(answer.status).to.equal(401);
        expect(answer.body.code).to.equal('invalid_signature');
      }
      expect(await deliveriesCounted('refused'), 'cairn_webhook_deliveries_total').to.equal(
        refusedBefore + 3,
      );
      await settle(3);
      expect(github.botComments(thread(2))).to.have.length(0);
      expect(github.calls.slice(before).some((call) => call.path.includes('/issues/2/'))).to.equal(false);
    });

    it('answers the same delivery once, also when it comes again to a restarted receiver', async () => {
      const payload = commentPayload({ issue: 4, body: '@cairn-bot [fake:reply once]' });
      const [acceptedBefore, duplicatesBefore] = [
        await deliveriesCounted('accepted'),
        await deliveriesCounted('duplicate'),
      ];
      const first = await deliver('issue_comment', payload, { deliveryId: 'same-delivery' });
      const again = await deliver('issue_comment', payload, { deliveryId: 'same-delivery' });
      expect(first.body.status).to.equal('accepted');
      expect(again.body.status).to.equal('duplicate');
      expect(await deliveriesCounted('accepted')).to.equal(acceptedBefore + 1);
      expect(await deliveriesCounted('duplicate')).to.equal(duplicatesBefore + 1);
      await botCommentsWhen(4, (texts) => texts.includes('once'), 'the answer');
      // A second API process on the same database: the record, not memory, knows the delivery.
      const restarted = await startTestCoreApp(core.test.db, core.context, core.workers);
      try {
        const later = await deliver('issue_comment', payload, {
          deliveryId: 'same-delivery',
          url: restarted.url,
        });
        expect(later.body.status).to.equal('duplicate');
        // Redelivered by a second webhook under another delivery id: the same comment, the same request.
        const other = await deliver('issue_comment', payload, {
          deliveryId: 'other-hook',
          url: restarted.url,
        });
        expect(other.body.status).to.equal('duplicate');
      } finally {
        await restarted.close();
      }
      await settle(4);
      expect(github.botComments(thread(4)).map((comment) => comment.body)).to.deep.equal(['once', 'settled']);
    });

    it('starts a request recorded before a crash (no workflow yet) from the sweep, once', async () => {
      const payload = commentPayload({ issue: 13, body: '@cairn-bot\n[fake:reply after the crash]' });
      const request = githubRequest(
        { event: 'issue_comment', deliveryId: 'crashed', payload },
        'cairn-bot',
      ) as CodeHostRequest;
      // What the webhook wrote before the process died: the row, and no workflow.
      const key = requestKey(request);
      await recordCodeHostDeliveries(core.test.db.knex, [
        { platform: 'github', requestKey: key, deliveryId: 'crashed', request },
      ]);
      await core.test.db
        .knex('code_host_deliveries')
        .where({ request_key: key })
        .update({ received_at: '2026-01-01T00:00:00.000Z' });
      const start = codeHostWorkStarter(core.workers.temporal.client, core.workers.taskQueue);
      expect(await startUnstartedRequests(core.context, start)).to.equal(1);
      await botCommentsWhen(13, (texts) => texts.includes('after the crash'), 'the answer');
      expect(await startUnstartedRequests(core.context, start)).to.equal(0);
      // The platform redelivering it now finds it handled.
      expect((await deliver('issue_comment', payload)).body.status).to.equal('duplicate');
      expect(github.botComments(thread(13))).to.have.length(1);
    });

    it('answers an edited comment as a new request', async () => {
      const first = commentPayload({ issue: 5, body: '@cairn-bot [fake:reply first answer]' });
      await deliver('issue_comment', first);
      await botCommentsWhen(5, (texts) => texts.includes('first answer'), 'the first answer');
      const edited = {
        ...commentPayload({
          issue: 5,
          body: '@cairn-bot [fake:reply second answer]',
          commentId: first.comment.id,
          updatedAt: '2026-11-26T10:05:00Z',
        }),
        action: 'edited',
      };
      expect((await deliver('issue_comment', edited)).body.status).to.equal('accepted');
      await botCommentsWhen(5, (texts) => texts.includes('second answer'), 'the second answer');
      expect(github.botComments(thread(5))).to.have.length(2);
      // The 👀 asked for again on the same comment: GitHub answers 200 with the one it has.
      const eyes = github.callsOf('POST', new RegExp(`/issues/comments/${first.comment.id}/reactions$`));
      expect(eyes.map((call) => call.status)).to.deep.equal([201, 200]);
      expect(
        github.reactions.filter((reaction) => reaction.on === `comment:${first.comment.id}`),
      ).to.have.length(1);
    });

    it('does no work for a user without write access, the bot itself, or another bot', async () => {
      const turns = core.fakes.invocations().length;
      const ignored: number[] = [];
      for (const [login, userType] of [
        ['reader', 'User'],
        ['stranger', 'User'],
        ['cairn-bot', 'User'],
        ['dependabot[bot]', 'Bot'],
      ] as const) {
        const payload = commentPayload({
          issue: 6,
          login,
          userType,
          body: '@cairn-bot\n[fake:reply not for you]',
        });
        ignored.push(payload.comment.id);
        // Accepted as a delivery (the platform must not retry it); the check comes after.
        expect((await deliver('issue_comment', payload)).body.status).to.equal('accepted');
      }
      // Each request's workflow ended having done nothing, by its own account.
      for (const [index, id] of ignored.entries()) {
        const workflowId = codeHostWorkflowId({
          platform: 'github',
          requestKey: `${REPO}#6:comment:${id}@2026-11-26T10:00:00Z`,
        });
        const outcome = (await core.workers.temporal.client.workflow
          .getHandle(workflowId)
          .result()) as string;
        expect(outcome).to.equal(index < 2 ? 'refused' : 'ignored');
      }
      expect(github.botComments(thread(6))).to.have.length(0);
      for (const id of ignored)
        expect(github.reactions.map((reaction) => reaction.on)).to.not.include(`comment:${id}`);
      expect(JSON.stringify(core.fakes.invocations().slice(turns))).to.not.contain('not for you');
    });

    it('posts the answer once when GitHub first answers 500, then a rate limit with Retry-After', async () => {
      github.failNext(
        'POST',
        new RegExp(`/repos/${REPO}/issues/8/comments$`),
        serverError,
        tooManyRequests(1),
      );
      await deliver(
        'issue_comment',
        commentPayload({ issue: 8, body: '@cairn-bot [fake:reply despite the outage]' }),
      );
      await botCommentsWhen(8, (texts) => texts.includes('despite the outage'), 'the answer');
      expect(github.botComments(thread(8))).to.have.length(1);
      const posts = github.callsOf('POST', new RegExp(`/repos/${REPO}/issues/8/comments$`));
      expect(posts.map((call) => call.status)).to.deep.equal([500, 429, 201]);
      // Retry-After: 1 was waited out before the next try.
      expect(posts[2]!.at - posts[1]!.at).to.be.at.least(1_000);
    });

    it('acknowledges unknown events and payloads missing fields with 202 and ignores them', async () => {
      const ping = await deliver('ping', { zen: 'Keep it logically awesome.', hook_id: 1 });
      expect(ping).to.deep.equal({ status: 202, body: { status: 'ignored' } });
      const partial = await deliver('issue_comment', {
        action: 'created',
        comment: { body: '@cairn-bot hi' },
      });
      expect(partial).to.deep.equal({ status: 202, body: { status: 'ignored' } });
      const unmentioned = await deliver('issue_comment', commentPayload({ issue: 9, body: 'just talking' }));
      expect(unmentioned.body.status).to.equal('ignored');
    });

    it('refuses a body over the limit with 413', async () => {
      const huge = commentPayload({ issue: 10, body: `@cairn-bot ${'x'.repeat(1_100_000)}` });
      const answer = await deliver('issue_comment', huge);
      expect(answer.status).to.equal(413);
    });

    it("shows in /api/health the state of the code host that runs: ready as the token's user, or failing with the reason", async () => {
      const health = (await (await fetch(`${core.app.url}/api/health`)).json()) as Record<string, unknown>;
      expect(health.codeHosts).to.deep.equal({
        github: {
          status: 'ready',
          detail: 'as @cairn-bot',
          since: (health.codeHosts as { github: { since: string } }).github.since,
        },
      });
      const environment = core.context.environment;
      const refused = new CodeHostMonitor(
        { ...environment, github: { ...environment.github, token: 'not-the-token' } },
        core.context.logger,
      );
      await refused.start();
      refused.stop();
      const state = refused.states().github!;
      expect(state.status).to.equal('failing');
      expect(state.detail).to.contain('Bad credentials').and.not.contain('not-the-token');
      const untokened = new CodeHostMonitor(
        { ...environment, github: { ...environment.github, token: undefined } },
        core.context.logger,
      );
      await untokened.start();
      untokened.stop();
      expect(untokened.states().github?.detail).to.contain('GITHUB_TOKEN is not set');
    });

    it('answers 503 naming the variable for a platform whose secret is not set', async () => {
      const response = await fetch(`${core.app.url}/webhooks/gitlab`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gitlab-token': 'anything' },
        body: JSON.stringify({ object_kind: 'note' }),
      });
      expect(response.status).to.equal(503);
      const problem = (await response.json()) as Record<string, unknown>;
      expect(problem.code).to.equal('webhook_not_configured');
      expect(problem.detail).to.contain('GITLAB_WEBHOOK_SECRET');
    });

    it('runs a workflow from a comment, shows its gate in the thread, and /approve completes it', async () => {
      const api = jsonClient(core.app.url);
      const registered = await api<{ name: string }>('POST', '/api/codebases', { path: core.repo.path });
      expect(registered.status).to.be.oneOf([200, 201]);
      const say = (body: string) => deliver('issue_comment', commentPayload({ issue: 11, body }));
      await say(`/codebase ${registered.body.name}`);
      await botCommentsWhen(
        11,
        (texts) => texts.some((text) => text.includes('new conversation')),
        'the codebase answer',
      );
      await say('@cairn-bot /workflow run gated');
      const comments = await botCommentsWhen(
        11,
        (texts) => texts.some((text) => text.includes('Approval needed')),
        'the gate comment',
      );
      const gate = comments.find((comment) => comment.body.includes('Approval needed'))!;
      expect(gate.body).to.contain('Ship it?').and.contain('/approve');
      await say('/approve looks good');
      const progress = await github.waitFor(
        () =>
          github
            .botComments(thread(11))
            .find((comment) => /completed/.test(comment.body) && comment.body.includes('gated')),
        'the run to complete',
      );
      expect(progress.body).to.contain('after');
      await github.waitFor(
        () => gate.body.includes('Approved by github:alice'),
        'the decision on the gate comment',
      );
    });

    it('in stream mode edits the tracking comment as the answer grows and ends with the final text', async () => {
      // About 9 s of streaming (8 characters every 200 ms): more than two of GitHub's 3 s edit intervals.
      writeFileSync(join(core.home.path, 'config.yaml'), 'streaming:\n  github: stream\n');
      core.context.config.reload();
      const answer =
        'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun until the ' +
        'shadows grow long and the evening wind carries the smell of rain over the hills and far away. ' +
        'Then the fox wakes, stretches, and trots home along the river past the mill and the old stone bridge, ' +
        'where the miller waves and the children count the boats drifting slowly down towards the sea.';
      await deliver(
        'issue_comment',
        commentPayload({ issue: 12, body: `@cairn-bot\n[fake:slow 200]\n[fake:reply ${answer}]` }),
      );
      const [comment] = await botCommentsWhen(12, (texts) => texts.includes(answer), 'the streamed answer');
      expect(github.botComments(thread(12))).to.have.length(1);
      const partial = comment!.history.slice(1, -1);
      expect(partial.length, 'edits while the text streamed').to.be.at.least(1);
      for (const text of partial) expect(answer.startsWith(text.replace(/…$/, '').trim())).to.equal(true);
    });
  });
}
