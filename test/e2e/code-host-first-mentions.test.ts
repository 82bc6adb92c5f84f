import { expect } from 'chai';
import { databaseKinds } from '../support/databases.js';
import { startLiveCore, type LiveCore } from '../support/live-core.js';
import { makeTempRepo, type TempRepo } from '../support/git-repos.js';
import { issueCommentPayload } from '../support/code-host-payloads.js';
import { githubDoorEnv, signGitHub, startFakeGitHub, type FakeGitHub } from '../support/fakes/github-api.js';

const SECRET = 'webhook-secret-for-first-mentions';
const SLOTS = 3;
const MENTIONS = 8;

describe('Code hosts: a burst of first mentions of one repository (fake GitHub, few activity slots)', function () {
  this.timeout(3 * 60_000);
  let github: FakeGitHub;
  let core: LiveCore;
  let repo: TempRepo;

  before(async () => {
    github = await startFakeGitHub();
    github.permissions.set('alice', 'write');
    repo = makeTempRepo({ files: { 'README.md': '# busy\n' } });
    github.git.host('acme/busy', repo.path);
    core = await startLiveCore(
      databaseKinds()[0]!,
      { 'README.md': '# unused\n' },
      {
        env: githubDoorEnv(github, SECRET),
        coreActivitySlots: SLOTS,
      },
    );
  });

  after(async () => {
    await core?.close();
    await github?.close();
    repo?.cleanup();
  });

  it('answers every one: requests that find the clone running give their activity slot back to it', async () => {
    // More requests than the core worker has slots: if each waited for the clone in its slot,
    // the clone's own activity would never get one.
    await Promise.all(
      Array.from({ length: MENTIONS }, async (_, index) => {
        const body = JSON.stringify(
          issueCommentPayload(
            github.url,
            'acme/busy',
            index + 1,
            `@cairn-bot hi\n[fake:reply answer ${index + 1}]`,
          ),
        );
        const response = await fetch(`${core.app.url}/webhooks/github`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'issue_comment',
            'x-github-delivery': `first-mention-${index}`,
            'x-hub-signature-256': signGitHub(SECRET, body),
          },
          body,
        });
        expect(response.status).to.equal(202);
      }),
    );
    for (let index = 1; index <= MENTIONS; index += 1) {
      await github.waitFor(
        () =>
          github
            .botComments(`acme/busy#${index}`)
            .find((comment) => comment.body.includes(`answer ${index}`)),
        `the answer in acme/busy#${index}`,
        90_000,
      );
    }
    const codebases = await core.test.db.knex('codebases').where({ repository_key: '127.0.0.1/acme/busy' });
    expect(codebases).to.have.length(1);
  });
});
