import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeHostWorkflowId } from '../../domain/codehost/code-host-work.js';
import { databaseKinds } from '../support/databases.js';
import { startLiveCore, type LiveCore } from '../support/live-core.js';
import { git, makeTempRepo, type TempRepo } from '../support/git-repos.js';
import { captureLogs } from '../support/logs.js';
import { issueCommentPayload as commentPayload, nextCommentId } from '../support/code-host-payloads.js';
import {
  GITHUB_TOKEN,
  githubDoorEnv,
  signGitHub,
  startFakeGitHub,
  type FakeGitHub,
} from '../support/fakes/github-api.js';
import { GITLAB_TOKEN, startFakeGitLab, type FakeGitLab } from '../support/fakes/gitlab-api.js';

const SECRET = 'webhook-secret-for-tests';
const GITLAB_SECRET = 'gitlab-token-secret';
/** The repository's own secret, in its base branch's .cairn/config.yaml (`env`). */
const REPO_SECRET = 'repo-secret-value';
const BASE_CONFIG = `env:\n  REPO_SECRET: ${REPO_SECRET}\n`;

/** A workflow whose one node commits a file: a run that changed code. */
const CHANGE_WORKFLOW = `name: change
description: commits a change
nodes:
  - id: edit
    bash: |
      echo changed > changed.txt
      git add changed.txt
      git -c user.name=Cairn -c user.email=cairn@example.invalid commit --quiet -m "A change"
`;
const NOOP_WORKFLOW = `name: noop
description: changes nothing
nodes:
  - id: look
    bash: ls
`;

/**
 * A workflow that shows where it ran: a bash node prints the commit it is at and the names of its
 * environment, an assistant node (its prompt names the run's message), then a bash node commits a
 * change, but only on the fork's code (fork.txt).
 */
const PROBE_WORKFLOW = `name: probe
description: where does it run
nodes:
  - id: look
    bash: |
      git rev-parse HEAD
      env | cut -d= -f1 | sort | tr '\\n' ' '
  - id: ask
    depends_on: [look]
    prompt: "[fake:reply probe asked] probe-node $ARGUMENTS"
  - id: edit
    depends_on: [ask]
    bash: |
      if [ -f fork.txt ]; then
        echo changed > changed.txt
        git add changed.txt
        git -c user.name=Cairn -c user.email=cairn@example.invalid commit --quiet -m "A change"
      fi
`;

/** A Note Hook payload as GitLab sends it, on a merge request of `project` (id `projectId`). */
function notePayload(gitBase: string, project: string, projectId: number, iid: number, note: string) {
  return {
    object_kind: 'note',
    event_type: 'note',
    user: { id: 42, username: 'alice', name: 'Alice' },
    project: {
      id: projectId,
      path_with_namespace: project,
      git_http_url: `${gitBase}/${project}.git`,
      default_branch: 'main',
    },
    object_attributes: {
      id: nextCommentId(),
      note,
      noteable_type: 'MergeRequest',
      updated_at: '2026-11-26 10:00:00 UTC',
      url: 'https://gitlab.example/x#note',
    },
    merge_request: {
      iid,
      title: `Merge request ${iid}`,
      description: 'A change.',
      url: 'https://gitlab.example/x',
      source_project_id: projectId,
      target_project_id: projectId,
    },
  };
}

/** A clone of `base` with a commit of its own: a branch (or a fork) a pull request comes from. */
function branchOf(base: TempRepo, files: Record<string, string>): TempRepo {
  const branch = makeTempRepo();
  git(branch.path, 'fetch', '--quiet', base.path, 'main');
  git(branch.path, 'reset', '--quiet', '--hard', 'FETCH_HEAD');
  branch.commit(files, 'the pull request');
  return branch;
}

/**
 * Code-host threads on their repositories: the repository becomes a codebase on its first mention
 * (cloned with the platform's token through the fake platform's git over HTTP, served by git
 * itself), pull requests are worked on at their head in a worktree, workflows and config come
 * from the base branch, and forks' pull requests run nothing unless the codebase opts in, then
 * without secrets.
 */
for (const kind of databaseKinds()) {
  describe(`Code-host repositories: clone on first mention, pull-request heads, forks (fake GitHub and GitLab) on ${kind.name}`, function () {
    this.timeout(4 * 60_000);
    let github: FakeGitHub;
    let gitlab: FakeGitLab;
    let core: LiveCore;
    const logs = captureLogs('debug');
    const repos: TempRepo[] = [];
    let deliveries = 0;

    function repo(files: Record<string, string>): TempRepo {
      const made = makeTempRepo({ files });
      repos.push(made);
      return made;
    }

    async function deliverGitHub(payload: unknown) {
      const body = JSON.stringify(payload);
      const response = await fetch(`${core.app.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-github-delivery': `repositories-${deliveries++}`,
          'x-hub-signature-256': signGitHub(SECRET, body),
        },
        body,
      });
      expect(response.status).to.equal(202);
    }

    async function deliverGitLab(payload: unknown) {
      const response = await fetch(`${core.app.url}/webhooks/gitlab`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Note Hook',
          'x-gitlab-token': GITLAB_SECRET,
          'x-gitlab-event-uuid': `repositories-${deliveries++}`,
        },
        body: JSON.stringify(payload),
      });
      expect(response.status).to.equal(202);
    }

    /** The bot's comment in a GitHub thread that contains `text`. */
    function githubAnswer(thread: string, text: string) {
      return github.waitFor(
        () => github.botComments(thread).find((comment) => comment.body.includes(text)),
        `the answer "${text}" in ${thread}`,
      );
    }

    /** The fake assistant's turn whose prompt contains `marker`. */
    function turnWith(marker: string) {
      // Not the title's invocation, which quotes the first message inside <message>.
      const turn = core.fakes
        .invocations()
        .find(
          (entry) => String(entry.prompt).includes(marker) && !String(entry.prompt).includes('<message>'),
        );
      expect(turn, `a turn with ${marker}`).to.not.equal(undefined);
      return turn as { cwd: string; envNames: string[]; echoedEnv: Record<string, string> };
    }

    /** The status and node outputs of the run of `workflow` started with `message`, once it has ended. */
    async function endedRun(workflow: string, message: string) {
      const { knex } = core.test.db;
      const deadline = Date.now() + 90_000;
      for (;;) {
        const run = await knex('workflow_runs').where({ workflow_name: workflow, message }).first();
        if (run && ['completed', 'failed', 'cancelled'].includes(run.status)) {
          const rows = (await knex('events')
            .where({ run_id: run.id, type: 'node_completed' })
            .select('node_id', 'payload')) as Array<{ node_id: string; payload: string }>;
          const outputs = Object.fromEntries(
            rows.map((row) => [row.node_id, (JSON.parse(row.payload) as { output: string }).output]),
          );
          return { id: run.id as string, status: run.status as string, outputs };
        }
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for the run of ${workflow} (${message})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    /** What the probe workflow's look node saw: the commit it was at and its environment's names. */
    function looked(output: unknown) {
      const [head, names] = String(output).split('\n');
      return { head, names: (names ?? '').trim().split(' ') };
    }

    /**
     * A probe run on a fork's code, ended: it completed, its bash node and its assistant worked on
     * the fork's head without the platform's token or the repository's secret. The assistant's turn.
     */
    async function expectForkRunWithoutSecrets(message: string, head: string, token: string) {
      const run = await endedRun('probe', message);
      expect(run.status).to.equal('completed');
      const seen = looked(run.outputs.look);
      expect(seen.head, 'the bash node works on the fork head').to.equal(head);
      expect(seen.names).to.include('ARTIFACTS_DIR').and.not.include(token).and.not.include('REPO_SECRET');
      const asked = turnWith(`probe-node ${message}`);
      expect(asked.envNames).to.not.include(token).and.not.include('REPO_SECRET');
      // The assistant worked in the run's worktree of the fork head (its one commit since is the edit node's).
      expect(git(asked.cwd, 'rev-parse', 'HEAD~1')).to.equal(head);
      return { run, asked };
    }

    async function codebaseRows() {
      return core.test.db.knex('codebases').select('*');
    }

    before(async () => {
      github = await startFakeGitHub();
      gitlab = await startFakeGitLab();
      github.permissions.set('alice', 'write');
      core = await startLiveCore(
        kind,
        { 'README.md': '# unused\n' },
        {
          env: {
            ...githubDoorEnv(github, SECRET),
            GITLAB_TOKEN,
            GITLAB_URL: gitlab.url,
            GITLAB_WEBHOOK_SECRET: GITLAB_SECRET,
            GITLAB_BOT_MENTION: 'cairn-bot',
            GITLAB_ALLOWED_USERS: 'alice',
            // The fake assistant logs this variable's value: where the repository's secret reached.
            FAKE_ASSISTANT_ECHO_ENV: 'REPO_SECRET',
          },
          logger: logs.logger,
        },
      );
    });

    after(async () => {
      await core?.close();
      await github?.close();
      await gitlab?.close();
      for (const made of repos) made.cleanup();
    });

    it('clones the repository on its first mention with the token, and answers on it', async () => {
      const base = repo({ 'README.md': '# app\n', '.cairn/config.yaml': BASE_CONFIG });
      github.git.host('acme/app', base.path);
      await deliverGitHub(
        commentPayload(github.url, 'acme/app', 1, '@cairn-bot hello\n[fake:reply cloned: yes]'),
      );
      await githubAnswer('acme/app#1', 'cloned: yes');

      const [codebase] = (await codebaseRows()).filter((row) => row.repository_key === '127.0.0.1/acme/app');
      expect(codebase, 'the codebase registered on the first mention').to.not.equal(undefined);
      expect(codebase.url).to.equal(`${github.url}/acme/app.git`);
      // git asked the fake platform, with the token (a request without it would have had a 401).
      const fetches = github.callsOf('GET', /^\/acme\/app\.git\/info\/refs$/);
      expect(fetches.map((call) => call.status)).to.include(200);
      expect(fetches.map((call) => call.status)).to.not.include(401);
      // The assistant worked in a worktree of the clone, with the repository's own secret.
      const turn = turnWith('cloned: yes');
      expect(readFileSync(join(turn.cwd, 'README.md'), 'utf8')).to.equal('# app\n');
      expect(turn.cwd.startsWith(join(codebase.source_path, '..'))).to.equal(true);
      expect(turn.echoedEnv.REPO_SECRET).to.equal(REPO_SECRET);

      // A second thread of the same repository finds the codebase: no second registration.
      await deliverGitHub(
        commentPayload(github.url, 'acme/app', 2, '@cairn-bot again\n[fake:reply same codebase]'),
      );
      await githubAnswer('acme/app#2', 'same codebase');
      expect(
        (await codebaseRows()).filter((row) => row.repository_key === '127.0.0.1/acme/app'),
      ).to.have.length(1);

      // The default branch moved on: the next request reads it as it is now (a workflow added
      // upstream is listed), through a fast-forward of the clone, not as it was first cloned.
      const moved = base.commit(
        {
          '.cairn/workflows/fresh.yaml':
            'name: fresh\ndescription: added upstream\nnodes:\n  - id: one\n    bash: echo one\n',
        },
        'a new workflow',
      );
      github.git.setRef('acme/app', 'refs/heads/main', base.path, moved);
      await deliverGitHub(commentPayload(github.url, 'acme/app', 3, '@cairn-bot /workflow list'));
      await githubAnswer('acme/app#3', '`fresh` — added upstream');
      expect(git(codebase.source_path, 'rev-parse', 'HEAD')).to.equal(moved);

      // The token is nowhere: not in the stored remote, the clone's config, the answers or the log.
      const config = readFileSync(join(codebase.source_path, '.git', 'config'), 'utf8');
      const everywhere = [
        JSON.stringify(await codebaseRows()),
        config,
        JSON.stringify(github.comments),
        logs.text(),
      ].join('\n');
      expect(everywhere).to.not.contain(GITHUB_TOKEN);
      expect(everywhere).to.not.contain(Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64'));
    });

    it('says in the thread that the token cannot read the repository, without the token; a user not allowed gets only a log line', async () => {
      const secret = repo({ 'README.md': '# secret\n' });
      github.git.host('acme/secret', secret.path);
      github.git.unreadable.add('acme/secret');
      await deliverGitHub(
        commentPayload(github.url, 'acme/secret', 1, '@cairn-bot hello\n[fake:reply never]'),
      );
      const answer = await githubAnswer('acme/secret#1', 'cannot read');
      expect(answer.body)
        .to.contain('I cannot read acme/secret with the configured GITHUB_TOKEN')
        .and.contain('Repository not found');
      expect(answer.body).to.not.contain(GITHUB_TOKEN);
      expect((await codebaseRows()).map((row) => row.repository_key)).to.not.include('127.0.0.1/acme/secret');
      expect(JSON.stringify(core.fakes.invocations())).to.not.contain('[fake:reply never]');

      // Someone without write access: no reply, no clone, a log line.
      const stranger = commentPayload(github.url, 'acme/secret', 2, '@cairn-bot hello');
      stranger.comment.user = { login: 'mallory', id: 66, type: 'User' };
      await deliverGitHub(stranger);
      // The work starts after the 202: its log line says when it has refused.
      await github.waitFor(
        () => logs.lines.some((line) => line.event === 'code_host.refused' && line.actor === 'mallory'),
        'the refusal in the log',
      );
      const outcome = await core.workers.temporal.client.workflow
        .getHandle(
          codeHostWorkflowId({
            platform: 'github',
            requestKey: `acme/secret#2:comment:${stranger.comment.id}@2026-11-26T10:00:00Z`,
          }),
        )
        .result();
      expect(outcome).to.equal('refused');
      expect(github.botComments('acme/secret#2')).to.have.length(0);
      expect(logs.text()).to.not.contain(GITHUB_TOKEN);
    });

    it('works on a pull request at its head, in its own worktree that follows new pushes; workflows and config come from the base branch', async () => {
      const base = repo({
        'README.md': '# shop\n',
        '.cairn/config.yaml': BASE_CONFIG,
        '.cairn/workflows/inspect.yaml':
          'name: inspect\ndescription: reads the head\nnodes:\n  - id: look\n    bash: cat feature.txt\n  - id: ask\n    depends_on: [look]\n    command: probe\n',
        '.cairn/commands/probe.md': '[fake:reply probe from the base branch]\n',
      });
      github.git.host('acme/shop', base.path);
      const branch = branchOf(base, {
        'feature.txt': 'the new feature\n',
        // What the pull request would like: neither is taken.
        '.cairn/config.yaml': 'env:\n  REPO_SECRET: from-the-pull-request\n',
        '.cairn/workflows/sneaky.yaml':
          'name: sneaky\ndescription: from the head\nnodes:\n  - id: a\n    bash: echo hi\n',
        '.cairn/commands/probe.md': '[fake:reply probe from the pull request]\n',
      });
      const first = github.pushPull('acme/shop', 5, branch.path);
      await deliverGitHub(
        commentPayload(github.url, 'acme/shop', 5, '@cairn-bot review\n[fake:reply head one]', {
          pull: true,
        }),
      );
      await githubAnswer('acme/shop#5', 'head one');
      const turn = turnWith('head one');
      expect(git(turn.cwd, 'rev-parse', 'HEAD')).to.equal(first);
      expect(git(turn.cwd, 'branch', '--show-current')).to.equal('cairn/pr-5');
      expect(readFileSync(join(turn.cwd, 'feature.txt'), 'utf8')).to.equal('the new feature\n');
      expect(turn.echoedEnv.REPO_SECRET, 'the config of the base branch').to.equal(REPO_SECRET);
      // The codebase's own checkout stays on the base branch.
      const [codebase] = (await codebaseRows()).filter((row) => row.repository_key === '127.0.0.1/acme/shop');
      expect(existsSync(join(codebase.source_path, 'feature.txt'))).to.equal(false);

      await deliverGitHub(commentPayload(github.url, 'acme/shop', 5, '/workflow run sneaky', { pull: true }));
      const refused = await github.waitFor(
        () => github.botComments('acme/shop#5').find((comment) => comment.body.includes('sneaky')),
        'the answer to /workflow run sneaky',
      );
      expect(refused.body).to.equal('No workflow named sneaky.');

      // A workflow run in the thread works on the head as well, with the base branch's commands.
      await deliverGitHub(
        commentPayload(github.url, 'acme/shop', 5, '/workflow run inspect', { pull: true }),
      );
      const outputs = async () =>
        Object.fromEntries(
          (
            (await core.test.db
              .knex('events')
              .where({ type: 'node_completed' })
              .whereIn('node_id', ['look', 'ask'])
              .select('node_id', 'payload')) as Array<{ node_id: string; payload: string }>
          ).map((row) => [row.node_id, (JSON.parse(row.payload) as { output: string }).output]),
        );
      const deadline = Date.now() + 60_000;
      let ended = await outputs();
      while (Object.keys(ended).length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ended = await outputs();
      }
      expect(ended).to.deep.equal({ look: 'the new feature', ask: 'probe from the base branch' });
      // A personal token may not write check runs (GitHub answers 403): asked once, not retried, logged once.
      const refusedLog = await github.waitFor(
        () => logs.lines.find((line) => line.event === 'code_host.check_runs_refused'),
        'the check-run refusal in the log',
      );
      expect(refusedLog.repository).to.equal('acme/shop');
      expect(
        github.callsOf('POST', /^\/repos\/acme\/shop\/check-runs$/).map((call) => call.status),
      ).to.deep.equal([403]);

      // A new push: the next question is answered on the new head, in the same worktree.
      const second = branch.commit({ 'feature.txt': 'the feature, improved\n' }, 'more');
      github.pushPull('acme/shop', 5, branch.path);
      await deliverGitHub(
        commentPayload(github.url, 'acme/shop', 5, '@cairn-bot again\n[fake:reply head two]', { pull: true }),
      );
      await githubAnswer('acme/shop#5', 'head two');
      const later = turnWith('head two');
      expect(later.cwd).to.equal(turn.cwd);
      expect(git(later.cwd, 'rev-parse', 'HEAD')).to.equal(second);

      // Work of the worktree's own (an edit the assistant left) is never thrown away for a new head.
      writeFileSync(join(later.cwd, 'feature.txt'), 'edited in the worktree\n');
      branch.commit({ 'feature.txt': 'the feature, third\n' }, 'third');
      github.pushPull('acme/shop', 5, branch.path);
      await deliverGitHub(
        commentPayload(github.url, 'acme/shop', 5, '@cairn-bot once more\n[fake:reply head kept]', {
          pull: true,
        }),
      );
      await githubAnswer('acme/shop#5', 'head kept');
      expect(git(turnWith('head kept').cwd, 'rev-parse', 'HEAD')).to.equal(second);
      expect(readFileSync(join(later.cwd, 'feature.txt'), 'utf8')).to.equal('edited in the worktree\n');
      expect(logs.lines.some((line) => line.event === 'code_host.pull_worktree_kept')).to.equal(true);
      branch.cleanup();
    });

    it("runs nothing on a fork's pull request unless the base branch opts in, and then questions and workflow runs without secrets, pushing nothing", async () => {
      // acme/closed does not opt in; a fork's head that says it does changes nothing.
      const closed = repo({
        'README.md': '# closed\n',
        '.cairn/config.yaml': BASE_CONFIG,
        '.cairn/workflows/probe.yaml': PROBE_WORKFLOW,
      });
      github.git.host('acme/closed', closed.path);
      const closedFork = branchOf(closed, { '.cairn/config.yaml': 'allow_fork_pull_requests: true\n' });
      repos.push(closedFork);
      github.pushPull('acme/closed', 6, closedFork.path, 'mallory/closed');
      await deliverGitHub(
        commentPayload(github.url, 'acme/closed', 6, '@cairn-bot hi\n[fake:reply fork answered]', {
          pull: true,
        }),
      );
      const refusal = await githubAnswer('acme/closed#6', 'comes from a fork');
      expect(refusal.body).to.contain('allow_fork_pull_requests');
      await deliverGitHub(
        commentPayload(github.url, 'acme/closed', 6, '/workflow run probe closed-fork', { pull: true }),
      );
      const runRefusal = await githubAnswer('acme/closed#6', 'Workflows do not run');
      expect(runRefusal.body).to.contain('comes from a fork').and.contain('allow_fork_pull_requests: true');
      expect(await core.test.db.knex('workflow_runs').where({ message: 'closed-fork' })).to.have.length(0);

      // acme/open opts in on its base branch.
      const open = repo({
        'README.md': '# open\n',
        '.cairn/config.yaml': `${BASE_CONFIG}allow_fork_pull_requests: true\n`,
        '.cairn/workflows/probe.yaml': PROBE_WORKFLOW,
      });
      github.git.host('acme/open', open.path);
      const fork = branchOf(open, {
        'fork.txt': 'from a fork\n',
        // What the fork would like: neither is taken.
        '.cairn/config.yaml': 'env:\n  REPO_SECRET: from-the-fork\nallow_fork_pull_requests: true\n',
        '.cairn/workflows/probe.yaml':
          "name: probe\ndescription: the fork's\nnodes:\n  - id: a\n    bash: echo fork\n",
      });
      repos.push(fork);
      const head = github.pushPull('acme/open', 7, fork.path, 'mallory/open');
      await deliverGitHub(
        commentPayload(github.url, 'acme/open', 7, '@cairn-bot hi\n[fake:reply fork worked]', { pull: true }),
      );
      await githubAnswer('acme/open#7', 'fork worked');
      const turn = turnWith('fork worked');
      expect(git(turn.cwd, 'rev-parse', 'HEAD')).to.equal(head);
      expect(turn.envNames).to.not.include('REPO_SECRET');
      // Not even the code-host token, which an assistant elsewhere keeps to push and open pull requests.
      expect(turn.envNames).to.not.include('GITHUB_TOKEN');
      expect(turn.echoedEnv.REPO_SECRET).to.equal(null);
      // Nothing of the checkout's own was copied next to the fork's code.
      expect(existsSync(join(turn.cwd, '.cairn', 'config.yaml'))).to.equal(true);
      expect(git(turn.cwd, 'status', '--porcelain')).to.equal('');

      // A workflow run, the first thing asked in another pull request of the fork: the base
      // branch's definition, on the fork's head, without secrets, and nothing pushed.
      expect(github.pushPull('acme/open', 9, fork.path, 'mallory/open')).to.equal(head);
      await deliverGitHub(
        commentPayload(github.url, 'acme/open', 9, '/workflow run probe from-the-fork', { pull: true }),
      );
      const { run: forkRun, asked } = await expectForkRunWithoutSecrets(
        'from-the-fork',
        head,
        'GITHUB_TOKEN',
      );
      expect(asked.echoedEnv.REPO_SECRET).to.equal(null);
      expect(git(asked.cwd, 'log', '-1', '--format=%s')).to.equal('A change');
      const untold = await githubAnswer('acme/open#9', 'were not pushed');
      expect(untold.body).to.contain(forkRun.id).and.contain('comes from a fork');
      expect(github.opened.filter((opened) => opened.repository === 'acme/open')).to.have.length(0);
      expect(github.callsOf('POST', /^\/acme\/open\.git\/git-receive-pack$/)).to.have.length(0);
      // Logged once that comment is posted, so it may land just after the test sees the comment.
      await github.waitFor(
        () => logs.lines.some((line) => line.runId === forkRun.id && line.reason === 'from_fork'),
        "the fork run's not-published log line",
      );

      // The same repository's own issue gets its secret: the checks above could have failed.
      await deliverGitHub(
        commentPayload(github.url, 'acme/open', 8, '@cairn-bot hi\n[fake:reply issue worked]'),
      );
      await githubAnswer('acme/open#8', 'issue worked');
      const trusted = turnWith('issue worked');
      expect(trusted.echoedEnv.REPO_SECRET).to.equal(REPO_SECRET);
      expect(trusted.envNames).to.include('GITHUB_TOKEN');
      await deliverGitHub(
        commentPayload(github.url, 'acme/open', 8, '/workflow run probe from-the-repository'),
      );
      const ownRun = await endedRun('probe', 'from-the-repository');
      expect(ownRun.status).to.equal('completed');
      expect(looked(ownRun.outputs.look).names).to.include('GITHUB_TOKEN');
      expect(turnWith('probe-node from-the-repository').echoedEnv.REPO_SECRET).to.equal(REPO_SECRET);
      expect(JSON.stringify(core.fakes.invocations())).to.not.contain('fork answered');
    });

    it('pushes the branch of a run that changed code and opens a pull request for it; a run that changed nothing opens none', async () => {
      const base = repo({
        'README.md': '# tools\n',
        '.cairn/workflows/change.yaml': CHANGE_WORKFLOW,
        '.cairn/workflows/noop.yaml': NOOP_WORKFLOW,
      });
      github.git.host('acme/tools', base.path);
      await deliverGitHub(commentPayload(github.url, 'acme/tools', 3, '/workflow run change tidy the tools'));
      const announcement = await githubAnswer('acme/tools#3', 'Opened pull request');
      const [pull, ...more] = github.opened.filter((opened) => opened.repository === 'acme/tools');
      expect(more).to.have.length(0);
      expect(pull!.head).to.match(/^cairn\/run-/);
      expect(pull!.base).to.equal('main');
      expect(pull!.title).to.equal('change: tidy the tools');
      expect(announcement.body).to.contain(`#${pull!.number}`).and.contain(pull!.head);
      // The branch really reached the repository, pushed with the token.
      expect(git(github.git.bareOf('acme/tools'), 'show', `${pull!.head}:changed.txt`)).to.equal('changed');
      const pushes = github.callsOf('POST', /^\/acme\/tools\.git\/git-receive-pack$/);
      expect(pushes.map((call) => call.status)).to.deep.equal([200]);

      await deliverGitHub(commentPayload(github.url, 'acme/tools', 4, '/workflow run noop'));
      await github.waitFor(
        () =>
          logs.lines.some(
            (line) => line.event === 'code_host.run_not_published' && line.reason === 'unchanged',
          ),
        'the run that changed nothing to be let be',
      );
      expect(github.opened.filter((opened) => opened.repository === 'acme/tools')).to.have.length(1);
      expect(
        github.botComments('acme/tools#4').some((comment) => comment.body.includes('pull request')),
      ).to.equal(false);

      // In a pull request the run starts at its head: the pull request's own commits are not the run's.
      const branch = branchOf(base, { 'feature.txt': 'a feature\n' });
      repos.push(branch);
      github.pushPull('acme/tools', 5, branch.path);
      await deliverGitHub(commentPayload(github.url, 'acme/tools', 5, '/workflow run noop', { pull: true }));
      await github.waitFor(
        () =>
          logs.lines.filter(
            (line) => line.event === 'code_host.run_not_published' && line.reason === 'unchanged',
          ).length >= 2,
        'the run on the pull request that changed nothing to be let be',
      );
      expect(github.opened.filter((opened) => opened.repository === 'acme/tools')).to.have.length(1);
    });

    it('on GitLab clones the project with its token, answers a merge request at its head, and refuses a fork', async () => {
      const project = 'acme/platform/web';
      const base = repo({ 'README.md': '# web\n' });
      gitlab.git.host(project, base.path);
      const branch = branchOf(base, { 'change.txt': 'a change\n' });
      repos.push(branch);
      const head = gitlab.pushMergeRequest(project, 2, branch.path, 91);
      await deliverGitLab(
        notePayload(gitlab.url, project, 91, 2, '@cairn-bot look\n[fake:reply merge request head]'),
      );
      await gitlab.waitFor(
        () => gitlab.botNotes(`${project}!2`).find((note) => note.body === 'merge request head'),
        'the answer on the merge request',
      );
      const turn = turnWith('merge request head');
      expect(git(turn.cwd, 'rev-parse', 'HEAD')).to.equal(head);
      expect(readFileSync(join(turn.cwd, 'change.txt'), 'utf8')).to.equal('a change\n');
      const [codebase] = (await codebaseRows()).filter(
        (row) => row.repository_key === '127.0.0.1/acme/platform/web',
      );
      expect(codebase.url).to.equal(`${gitlab.url}/${project}.git`);
      expect(
        gitlab.callsOf('POST', /^\/acme\/platform\/web\.git\/git-upload-pack$/).map((call) => call.status),
      ).to.include(200);

      gitlab.pushMergeRequest(project, 4, branch.path, 91, 1234);
      await deliverGitLab(
        notePayload(gitlab.url, project, 91, 4, '@cairn-bot look\n[fake:reply fork merge request]'),
      );
      const refusal = await gitlab.waitFor(
        () => gitlab.botNotes(`${project}!4`).find((note) => note.body.includes('comes from a fork')),
        'the refusal on the fork merge request',
      );
      expect(refusal.body).to.contain('merge request');
      expect(JSON.stringify(core.fakes.invocations())).to.not.contain('fork merge request');
      await deliverGitLab(notePayload(gitlab.url, project, 91, 4, '/workflow run probe gitlab-closed-fork'));
      const runRefusal = await gitlab.waitFor(
        () => gitlab.botNotes(`${project}!4`).find((note) => note.body.includes('Workflows do not run')),
        'the refusal of the workflow run on the fork merge request',
      );
      expect(runRefusal.body).to.contain('merge request').and.contain('allow_fork_pull_requests: true');
      expect(logs.text()).to.not.contain(GITLAB_TOKEN);
    });

    it("on GitLab runs a workflow on an opted-in fork's merge request at its head, without the token, pushing nothing", async () => {
      const project = 'acme/platform/open';
      const base = repo({
        'README.md': '# open\n',
        '.cairn/config.yaml': `${BASE_CONFIG}allow_fork_pull_requests: true\n`,
        '.cairn/workflows/probe.yaml': PROBE_WORKFLOW,
      });
      gitlab.git.host(project, base.path);
      const fork = branchOf(base, { 'fork.txt': 'from a fork\n' });
      repos.push(fork);
      const head = gitlab.pushMergeRequest(project, 3, fork.path, 93, 4321);
      await deliverGitLab(notePayload(gitlab.url, project, 93, 3, '/workflow run probe from-a-gitlab-fork'));
      await expectForkRunWithoutSecrets('from-a-gitlab-fork', head, 'GITLAB_TOKEN');
      const untold = await gitlab.waitFor(
        () => gitlab.botNotes(`${project}!3`).find((note) => note.body.includes('were not pushed')),
        'the note that the changes were not pushed',
      );
      expect(untold.body).to.contain('no merge request was opened');
      expect(gitlab.opened.filter((opened) => opened.project === project)).to.have.length(0);
      expect(gitlab.callsOf('POST', /^\/acme\/platform\/open\.git\/git-receive-pack$/)).to.have.length(0);
      expect(logs.text()).to.not.contain(GITLAB_TOKEN);
    });

    it('on GitLab pushes the branch of a run that changed code and opens a merge request for it', async () => {
      const project = 'acme/platform/tools';
      const base = repo({ 'README.md': '# tools\n', '.cairn/workflows/change.yaml': CHANGE_WORKFLOW });
      gitlab.git.host(project, base.path);
      gitlab.pushMergeRequest(project, 6, base.path, 92);
      await deliverGitLab(notePayload(gitlab.url, project, 92, 6, '/workflow run change on GitLab'));
      const announcement = await gitlab.waitFor(
        () => gitlab.botNotes(`${project}!6`).find((note) => note.body.includes('Opened merge request')),
        'the merge request announcement',
      );
      const [opened, ...more] = gitlab.opened.filter((request) => request.project === project);
      expect(more).to.have.length(0);
      expect(opened!.source).to.match(/^cairn\/run-/);
      expect(opened!.target).to.equal('main');
      expect(announcement.body).to.contain(`!${opened!.iid}`);
      expect(git(gitlab.git.bareOf(project), 'show', `${opened!.source}:changed.txt`)).to.equal('changed');
      expect(logs.text()).to.not.contain(GITLAB_TOKEN);
    });
  });
}
