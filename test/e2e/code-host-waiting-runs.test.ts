import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import { issueCommentPayload } from '../support/code-host-payloads.js';
import { githubDoorEnv, signGitHub, startFakeGitHub, type FakeGitHub } from '../support/fakes/github-api.js';

const SECRET = 'webhook-secret-for-waiting-runs';
const SLOTS = 2;
const RUNS = 3;
const REPO = 'acme/gates';

describe('Code hosts: more runs waiting at a gate than the core worker has activity slots (fake GitHub)', function () {
  this.timeout(3 * 60_000);
  let github: FakeGitHub;
  let core: LiveCore;
  let commentId = 9000;

  before(async () => {
    github = await startFakeGitHub();
    github.permissions.set('alice', 'write');
    core = await startLiveCore(
      databaseKinds()[0]!,
      { 'README.md': '# gates\n', '.cairn/workflows/gated.yaml': GATED_WORKFLOW },
      {
        env: githubDoorEnv(github, SECRET),
        coreActivitySlots: SLOTS,
      },
    );
    github.git.host(REPO, core.repo.path);
  });

  after(async () => {
    await core?.close();
    await github?.close();
  });

  async function say(issue: number, body: string) {
    const text = JSON.stringify(
      issueCommentPayload(github.url, REPO, issue, body, { commentId: commentId++ }),
    );
    const response = await fetch(`${core.app.url}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': `waiting-${commentId}`,
        'x-hub-signature-256': signGitHub(SECRET, text),
      },
      body: text,
    });
    if (response.status !== 202) throw new Error(`webhook answered ${response.status}`);
  }

  const commentIn = (issue: number, pattern: RegExp, what: string) =>
    github.waitFor(
      () => github.botComments(`${REPO}#${issue}`).find((comment) => pattern.test(comment.body)),
      what,
      90_000,
    );

  it('shows every gate and takes an /approve: the threads that follow a waiting run hold no core slot', async () => {
    // Each thread follows its run until it ends. Were that done in a core activity slot, the
    // runs waiting at their gates would hold every slot, and nothing needing one (the third
    // request, the /approve that would end a wait) would ever be handled.
    const issues = Array.from({ length: RUNS }, (_, index) => 31 + index);
    await say(issues[0]!, '@cairn-bot /workflow run gated');
    await commentIn(issues[0]!, /Approval needed/, 'the first gate');
    for (const issue of issues.slice(1)) await say(issue, '@cairn-bot /workflow run gated');
    for (const issue of issues.slice(1)) await commentIn(issue, /Approval needed/, `the gate in #${issue}`);
    await say(issues[1]!, '/approve go');
    await commentIn(issues[1]!, /completed/, 'the approved run to complete');
  });
});
