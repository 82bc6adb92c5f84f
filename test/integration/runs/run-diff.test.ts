import { expect } from 'chai';
import { findCodebase } from '../../../db/repositories/codebases.js';
import { findEnvironment } from '../../../db/repositories/isolation-environments.js';
import { findRun } from '../../../db/repositories/workflow-runs.js';
import { removeWorktree } from '../../../services/worktrees/worktrees.js';
import { databaseKinds } from '../../support/databases.js';
import { git } from '../../support/git-repos.js';
import { startWorkflowRunHarness, type WorkflowRunHarness } from '../../support/workflow-runs.js';

// A run's diff against its base branch (GET /api/workflows/runs/{id}/diff), with real git, a real
// worktree and the fake assistant writing a file in it.

/** The assistant writes a new file; a script commits a change and leaves one uncommitted. */
const CHANGE = `name: change
nodes:
  - id: edit
    prompt: "[fake:write notes/hello.txt hello from the run]"
  - id: commit
    depends_on: [edit]
    bash: |
      printf '# app\\nsecond line\\n' > README.md
      git add README.md
      git -c user.name=run -c user.email=run@cairn.invalid commit --quiet -m "readme"
      rm old.txt
      git mv moved.txt renamed.txt
      echo done
`;

/** Writes a file of 1.5 MB: its patch is over the cap. */
const BIG = `name: big
nodes:
  - id: write
    bash: |
      seq 1 200000 > big.txt
      echo written
`;

const SHARED = `name: shared
isolation: none
nodes:
  - id: look
    bash: echo looked
`;

interface ChangedFile {
  path: string;
  oldPath: string | null;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

interface RunDiff {
  runId: string;
  baseBranch: string;
  mergeBase: string;
  head: string;
  files: ChangedFile[];
  patch: string;
  truncated: boolean;
}

for (const kind of databaseKinds()) {
  describe(`a run's changes against its base branch (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    let baseCommit: string;

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        'old.txt': 'to be deleted\n',
        'moved.txt': 'this file moves\nunchanged\nin content\n',
        '.cairn/workflows/change.yaml': CHANGE,
        '.cairn/workflows/big.yaml': BIG,
        '.cairn/workflows/shared.yaml': SHARED,
      });
      baseCommit = git(harness.repo.path, 'rev-parse', 'HEAD');
    });

    after(async () => harness?.close());

    const diffOf = (runId: string) =>
      harness.call<RunDiff & { code?: string; detail?: string }>('GET', `/api/workflows/runs/${runId}/diff`);

    it('lists committed, uncommitted and new files with their counts, and shows their hunks', async () => {
      const { run } = await harness.runToEnd('change', 'change things');
      expect(run.status, run.error ?? '').to.equal('completed');
      // The base branch moves on after the run started: the diff still starts at the fork point.
      harness.repo.commit({ 'later.txt': 'on main after the run\n' }, 'later');

      const answer = await diffOf(run.runId);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const diff = answer.body;
      expect(diff).to.include({
        runId: run.runId,
        baseBranch: 'main',
        mergeBase: baseCommit,
        truncated: false,
      });
      expect(diff.head)
        .to.match(/^[0-9a-f]{40}$/)
        .and.not.equal(baseCommit);
      const byPath = Object.fromEntries(diff.files.map((file) => [file.path, file]));
      // The .cairn folder Cairn copied into the worktree is not a change of the run's.
      expect(Object.keys(byPath).sort()).to.deep.equal([
        'README.md',
        'notes/hello.txt',
        'old.txt',
        'renamed.txt',
      ]);
      expect(byPath['README.md']).to.deep.include({
        status: 'modified',
        additions: 1,
        deletions: 0,
        oldPath: null,
      });
      expect(byPath['notes/hello.txt']).to.deep.include({ status: 'added', additions: 1, deletions: 0 });
      expect(byPath['old.txt']).to.deep.include({ status: 'deleted', additions: 0, deletions: 1 });
      expect(byPath['renamed.txt']).to.deep.include({
        status: 'renamed',
        oldPath: 'moved.txt',
        additions: 0,
        deletions: 0,
        binary: false,
      });
      expect(diff.patch).to.include('diff --git a/README.md b/README.md\n');
      expect(diff.patch).to.include('+second line\n');
      expect(diff.patch).to.include('+++ b/notes/hello.txt\n@@ -0,0 +1 @@\n+hello from the run');
      expect(diff.patch).to.include('--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-to be deleted\n');
      expect(diff.patch).to.include('rename from moved.txt\nrename to renamed.txt\n');
      expect(diff.patch).not.to.include('later.txt');

      // Reading the diff left the worktree's own index as it was: the new file is still untracked.
      const stored = await findRun(harness.test.db.knex, run.runId);
      const environment = await findEnvironment(harness.test.db.knex, stored!.isolationEnvironmentId!);
      const status = git(environment!.path, 'status', '--porcelain', '--untracked-files=all');
      expect(status).to.include('?? notes/hello.txt').and.include('R  moved.txt -> renamed.txt');
    });

    it('cuts a patch over 1 MB at a line end and says so, keeping the whole file list', async () => {
      const { run } = await harness.runToEnd('big', 'write a lot');
      expect(run.status, run.error ?? '').to.equal('completed');
      const { status, body } = await diffOf(run.runId);
      expect(status).to.equal(200);
      expect(body.truncated).to.equal(true);
      expect(Buffer.byteLength(body.patch))
        .to.be.at.most(1024 * 1024)
        .and.above(1000 * 1024);
      expect(body.patch.endsWith('\n')).to.equal(true);
      expect(body.files).to.deep.equal([
        { path: 'big.txt', oldPath: null, status: 'added', additions: 200_000, deletions: 0, binary: false },
      ]);
    });

    it('answers 404 for an unknown run, and a 409 for a run without a worktree or whose worktree is gone', async () => {
      const missing = await diffOf('00000000-0000-4000-8000-000000000000');
      expect(missing.status).to.equal(404);

      const { run: shared } = await harness.runToEnd('shared', 'look');
      const none = await diffOf(shared.runId);
      expect(none.status).to.equal(409);
      expect(none.body.code).to.equal('run_has_no_worktree');
      expect(none.body.detail).to.include('isolation: none');

      const { run } = await harness.runToEnd('change', 'change again');
      const { knex } = harness.test.db;
      const stored = await findRun(knex, run.runId);
      const environment = await findEnvironment(knex, stored!.isolationEnvironmentId!);
      const codebase = await findCodebase(knex, stored!.codebaseId!);
      const removed = await removeWorktree({
        db: harness.test.db,
        environment: environment!,
        sourcePath: codebase!.sourcePath,
        force: true,
      });
      expect(removed.removed).to.equal(true);
      const gone = await diffOf(run.runId);
      expect(gone.status).to.equal(409);
      expect(gone.body.code).to.equal('worktree_removed');
      expect(gone.body.detail).to.include('was removed');
    });
  });
}
