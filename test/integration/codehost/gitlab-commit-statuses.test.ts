import { expect } from 'chai';
import { RunStatusRefused, type CodeHostClient } from '../../../infra/codehost/code-host-client.js';
import { createGitLabClient } from '../../../infra/codehost/gitlab-client.js';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { GITLAB_TOKEN, startFakeGitLab, type FakeGitLab } from '../../support/fakes/gitlab-api.js';

const PROJECT = 'acme/platform/statuses';

/**
 * The GitLab client's commit statuses against the fake GitLab API, which keeps them as GitLab
 * does: one per name, ref and pipeline, refusing to set a running one running again (400).
 */
describe('GitLab commit statuses of workflow runs (fake GitLab API)', () => {
  let gitlab: FakeGitLab;
  let repo: TempRepo;
  let client: CodeHostClient;
  let sha: string;

  beforeEach(async () => {
    gitlab = await startFakeGitLab();
    repo = makeTempRepo();
    gitlab.git.host(PROJECT, repo.path);
    sha = git(repo.path, 'rev-parse', 'HEAD');
    client = createGitLabClient({ token: GITLAB_TOKEN, url: gitlab.url });
  });

  afterEach(async () => {
    await gitlab.close();
    repo.cleanup();
  });

  function start(title = 'tidy is running') {
    return client.runStatuses!.start({
      repositoryPath: PROJECT,
      headSha: sha,
      name: 'cairn/tidy',
      externalId: 'run-1',
      detailsUrl: 'https://cairn.example.com/runs/run-1',
      title,
      summary: 'Workflow run `run-1` started from this pull request.',
    });
  }

  const posts = () => gitlab.callsOf('POST', /\/statuses\//);

  it('takes a status already running on a retried start, and ends that one', async () => {
    const first = await start();
    const retried = await start();
    expect(retried).to.equal(first);
    expect(posts().map((call) => call.status)).to.deep.equal([201]);

    await client.runStatuses!.complete(PROJECT, first, {
      conclusion: 'failure',
      title: 'tidy failed',
      summary: 'Workflow run `run-1` failed.',
    });
    expect(gitlab.statuses).to.have.length(1);
    expect(gitlab.statuses[0]).to.deep.include({
      sha,
      ref: 'main',
      name: 'cairn/tidy',
      status: 'failed',
      states: ['running', 'failed'],
      description: 'tidy failed',
      targetUrl: 'https://cairn.example.com/runs/run-1',
    });
    expect(posts().map((call) => call.status)).to.deep.equal([201, 201]);
  });

  it('keeps the description within the 255 characters GitLab stores', async () => {
    await start(`${'x'.repeat(300)} is running`);
    expect(gitlab.statuses[0]!.description).to.have.length(255);
  });

  it('says a 403 is a refusal of statuses, not of the whole thread', async () => {
    gitlab.statusesRefused.add(PROJECT);
    let failure: unknown;
    try {
      await start();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(RunStatusRefused);
    expect((failure as Error).message).to.contain('403');
  });
});
