import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseBranchError } from '../../../infra/git/base-branch.js';
import { environmentBranch } from '../../../services/worktrees/branch-names.js';
import { CopyFilesError } from '../../../infra/git/copy-files.js';
import { gitSucceeds } from '../../../infra/git/run-git.js';
import { hasUncommittedChanges } from '../../../infra/git/worktree-status.js';
import {
  WorktreeError,
  ensureWorktree,
  removeWorktree,
  type EnsureWorktreeInput,
} from '../../../services/worktrees/worktrees.js';
import { createCodebase } from '../../../db/repositories/codebases.js';
import {
  listEnvironments,
  markEnvironmentDestroyed,
} from '../../../db/repositories/isolation-environments.js';
import { captureLogs, type LogLine } from '../../support/logs.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { git, makeTempRepo } from '../../support/git-repos.js';
import { makeRemoteFixture, type RemoteFixture } from './git-fixtures.js';

async function rejection<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}`);
}

const DAY_MS = 86_400_000;

async function until(condition: () => boolean): Promise<void> {
  // Bounded by the test's timeout; nothing here asserts on time.
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function untilLogged(lines: LogLine[], message: string): Promise<void> {
  await until(() => lines.some((line) => line.msg === message));
}

/**
 * Holds every `git worktree add` in `source` inside its post-checkout hook until released: a
 * real pause point between "looked for an active record" and "inserted one".
 */
function pauseCheckouts(source: string): { reached(): Promise<void>; release(): void } {
  const reachedFile = join(source, '.git', 'cairn-test-reached');
  const releaseFile = join(source, '.git', 'cairn-test-release');
  const hook = join(source, '.git', 'hooks', 'post-checkout');
  writeFileSync(
    hook,
    `#!/bin/sh\ntouch "${reachedFile}"\nwhile [ ! -e "${releaseFile}" ]; do sleep 0.05; done\n`,
  );
  chmodSync(hook, 0o755);
  return {
    reached: () => until(() => existsSync(reachedFile)),
    release: () => writeFileSync(releaseFile, ''),
  };
}

function worktreePaths(source: string): string[] {
  return git(source, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

for (const kind of databaseKinds()) {
  describe(`git: worktree isolation environments (${kind.name})`, function () {
    this.timeout(60_000);
    let testDb: TestDatabase;
    let fixture: RemoteFixture;
    let codebaseId: string;
    let worktreesRoot: string;

    const input = (extra: Partial<EnsureWorktreeInput> = {}): EnsureWorktreeInput => ({
      db: testDb.db,
      codebaseId,
      sourcePath: fixture.source,
      worktreesRoot,
      kind: 'task',
      key: 'fix-login',
      ...extra,
    });

    /** What another process's cleanup does when it starts removing an environment. */
    const claimForRemovalElsewhere = (id: string) =>
      testDb.db.knex('isolation_environments').where({ id }).update({ status: 'destroying' });

    beforeEach(async () => {
      testDb = await kind.create();
      fixture = makeRemoteFixture();
      worktreesRoot = join(fixture.scratch, 'worktrees');
      const codebase = await createCodebase(testDb.db.knex, {
        name: 'demo',
        repositoryKey: `test:${randomUUID()}`,
        sourcePath: fixture.source,
      });
      codebaseId = codebase.id;
    });

    afterEach(async () => {
      await testDb.dispose();
      fixture.cleanup();
    });

    it("creates a worktree on the deterministic branch, from the remote default branch's commit", async () => {
      const { environment, adopted, baseBranch } = await ensureWorktree(input({ kind: 'issue', key: '42' }));
      expect(adopted).to.equal(false);
      expect(baseBranch).to.deep.equal({ branch: 'main', source: 'remote-default' });
      expect(environment).to.include({
        codebaseId,
        kind: 'issue',
        key: '42',
        branch: 'cairn/issue-42',
        path: join(worktreesRoot, 'issue-42'),
        baseBranch: 'main',
        status: 'active',
        destroyedAt: null,
      });
      expect(environment.lastActivityAt).to.be.a('string');
      expect(git(environment.path, 'rev-parse', '--abbrev-ref', 'HEAD')).to.equal('cairn/issue-42');
      expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(fixture.commits.main);
      // No upstream: a bare `git push` must not land on the base branch.
      expect(
        await gitSucceeds(['rev-parse', '--abbrev-ref', '@{upstream}'], { cwd: environment.path }),
      ).to.equal(false);
      expect(await hasUncommittedChanges(environment.path)).to.equal(false);
    });

    it('starts from the remote tip, fetched fresh, not from the stale clone', async () => {
      const newer = fixture.pushCommit('main', { 'later.txt': 'later\n' });
      const { environment } = await ensureWorktree(input());
      expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(newer);
    });

    it("follows a change of the remote's default branch without re-cloning", async () => {
      fixture.setRemoteHead('refs/heads/develop');
      const { environment, baseBranch } = await ensureWorktree(input());
      expect(baseBranch).to.deep.equal({ branch: 'develop', source: 'remote-default' });
      expect(environment.baseBranch).to.equal('develop');
      expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(fixture.commits.develop);
    });

    it('starts from a configured base branch', async () => {
      const { environment } = await ensureWorktree(input({ configuredBaseBranch: 'feature/x' }));
      expect(environment.baseBranch).to.equal('feature/x');
      expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(fixture.commits.feature);
    });

    it('fails with no fallback when the configured base branch is missing, leaving nothing behind', async () => {
      const error = await rejection(
        ensureWorktree(input({ configuredBaseBranch: 'release' })),
        BaseBranchError,
      );
      expect(error.code).to.equal('configured_base_branch_missing');
      expect(await listEnvironments(testDb.db.knex, codebaseId)).to.deep.equal([]);
      expect(existsSync(join(worktreesRoot, 'task-fix-login'))).to.equal(false);
      expect(git(fixture.source, 'branch', '--list', 'cairn/*')).to.equal('');
    });

    it('explains the resolution chain when the default branch cannot be detected and $BASE_BRANCH is used', async () => {
      fixture.setRemoteHead('refs/heads/gone');
      const error = await rejection(ensureWorktree(input({ usesBaseBranchVariable: true })), BaseBranchError);
      expect(error.code).to.equal('base_branch_unresolved');
      expect(error.message).to.contain('worktree.baseBranch');
      expect(await listEnvironments(testDb.db.knex, codebaseId)).to.deep.equal([]);
    });

    it("starts from the source checkout's HEAD when detection fails and $BASE_BRANCH is not used", async () => {
      fixture.setRemoteHead('refs/heads/gone');
      git(fixture.source, 'checkout', '--quiet', '-b', 'local-work', 'origin/develop');
      const { environment, baseBranch } = await ensureWorktree(input({ usesBaseBranchVariable: false }));
      expect(baseBranch?.source).to.equal('current-head');
      expect(environment.baseBranch).to.equal(null);
      expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(fixture.commits.develop);
    });

    it('copies .cairn/ (even untracked) and worktree.copyFiles, and still counts the worktree clean', async () => {
      mkdirSync(join(fixture.source, '.cairn'));
      writeFileSync(join(fixture.source, '.cairn/config.yaml'), 'worktree:\n  baseBranch: main\n');
      writeFileSync(join(fixture.source, '.env'), 'SECRET=1\n');
      mkdirSync(join(fixture.source, 'fixtures/deep'), { recursive: true });
      writeFileSync(join(fixture.source, 'fixtures/deep/data.json'), '{}\n');
      const { environment, copy } = await ensureWorktree(
        input({ copyFiles: ['.env', '.env -> config/.env.local', 'fixtures', 'nope.txt'] }),
      );
      const read = (path: string) => readFileSync(join(environment.path, path), 'utf8');
      expect(read('.cairn/config.yaml')).to.contain('baseBranch');
      expect(read('.env')).to.equal('SECRET=1\n');
      expect(read('config/.env.local')).to.equal('SECRET=1\n');
      expect(read('fixtures/deep/data.json')).to.equal('{}\n');
      expect(copy?.skipped).to.deep.equal([{ entry: 'nope.txt', reason: 'source_missing' }]);
      expect(await hasUncommittedChanges(environment.path)).to.equal(false);
      // Editing a copied file is a change like any other.
      writeFileSync(join(environment.path, '.env'), 'SECRET=2\n');
      expect(await hasUncommittedChanges(environment.path)).to.equal(true);
    });

    it('refuses copyFiles entries that escape the repository before making anything', async () => {
      symlinkOutside(fixture);
      for (const entry of ['../x', '/etc/passwd', 'leak.txt']) {
        const error = await rejection(ensureWorktree(input({ copyFiles: [entry] })), CopyFilesError);
        expect(error.entry).to.equal(entry);
      }
      expect(await listEnvironments(testDb.db.knex, codebaseId)).to.deep.equal([]);
      expect(existsSync(join(worktreesRoot, 'task-fix-login'))).to.equal(false);
      expect(git(fixture.source, 'branch', '--list', 'cairn/*')).to.equal('');
    });

    it('adopts the active environment for the same key', async () => {
      const first = await ensureWorktree(input({ kind: 'thread', key: 'chat:1' }));
      // Backdated, so the touch on adoption shows whatever the clock's resolution.
      const backdated = new Date(Date.now() - DAY_MS).toISOString();
      await testDb.db
        .knex('isolation_environments')
        .where({ id: first.environment.id })
        .update({ last_activity_at: backdated });
      const second = await ensureWorktree(input({ kind: 'thread', key: 'chat:1' }));
      expect(second.adopted).to.equal(true);
      expect(second.environment.id).to.equal(first.environment.id);
      expect(second.environment.path).to.equal(first.environment.path);
      expect(Date.parse(second.environment.lastActivityAt)).to.be.greaterThan(Date.parse(backdated));
      const other = await ensureWorktree(input({ kind: 'thread', key: 'chat:2' }));
      expect(other.environment.id).not.to.equal(first.environment.id);
      expect(other.environment.branch).to.equal(environmentBranch('thread', 'chat:2'));
    });

    it('recreates a vanished folder, continuing on the kept branch', async () => {
      const first = await ensureWorktree(input());
      const work = join(first.environment.path, 'work.txt');
      writeFileSync(work, 'done\n');
      git(first.environment.path, 'add', 'work.txt');
      git(first.environment.path, 'commit', '--quiet', '-m', 'work');
      const tip = git(first.environment.path, 'rev-parse', 'HEAD');
      rmSync(first.environment.path, { recursive: true, force: true });

      const second = await ensureWorktree(input());
      expect(second.adopted).to.equal(false);
      expect(second.environment.id).not.to.equal(first.environment.id);
      expect(second.environment.path).to.equal(first.environment.path);
      expect(git(second.environment.path, 'rev-parse', 'HEAD')).to.equal(tip);
      const records = await listEnvironments(testDb.db.knex, codebaseId);
      expect(records.map((record) => record.status)).to.deep.equal(['destroyed', 'active']);
    });

    it('records a worktree left on disk without a record (a crash before the insert)', async () => {
      const path = join(worktreesRoot, 'task-fix-login');
      git(fixture.source, 'worktree', 'add', '--quiet', '-b', 'cairn/task-fix-login', path, 'origin/main');
      const { environment, adopted } = await ensureWorktree(input());
      expect(adopted).to.equal(true);
      expect(environment.path).to.equal(path);
      expect(worktreePaths(fixture.source).filter((p) => p.endsWith('task-fix-login'))).to.have.length(1);
    });

    it('refuses to build over a folder that is not a worktree', async () => {
      mkdirSync(join(worktreesRoot, 'task-fix-login'), { recursive: true });
      writeFileSync(join(worktreesRoot, 'task-fix-login', 'keep.txt'), 'mine\n');
      const error = await rejection(ensureWorktree(input()), WorktreeError);
      expect(error.code).to.equal('path_occupied');
      expect(readFileSync(join(worktreesRoot, 'task-fix-login', 'keep.txt'), 'utf8')).to.equal('mine\n');
    });

    it('ends with one worktree and one active record when called concurrently for one key', async () => {
      // The first call is held inside `git worktree add` while four more arrive, so they
      // overlap it for certain: only the per-repository lock keeps them from building again.
      const gate = pauseCheckouts(fixture.source);
      const first = ensureWorktree(input());
      await gate.reached();
      const others = Array.from({ length: 4 }, () => ensureWorktree(input()));
      gate.release();
      const results = await Promise.all([first, ...others]);
      const ids = new Set(results.map((result) => result.environment.id));
      expect(ids.size).to.equal(1);
      expect(results.map((result) => result.adopted)).to.deep.equal([false, true, true, true, true]);
      const active = (await listEnvironments(testDb.db.knex, codebaseId)).filter(
        (e) => e.status === 'active',
      );
      expect(active).to.have.length(1);
      expect(worktreePaths(fixture.source).filter((p) => p.includes('task-fix-login'))).to.have.length(1);
    });

    it('lets the database decide between processes: the loser adopts the winner and removes its worktree', async () => {
      // A second clone with its own worktrees folder stands in for another worker process: it
      // does not share this process's lock, so only the unique index can settle the race.
      git(fixture.scratch, 'clone', '--quiet', fixture.remote.url, 'source-2');
      const otherSource = join(fixture.scratch, 'source-2');
      const otherRoot = join(fixture.scratch, 'worktrees-2');
      // The other process is held inside `git worktree add` (its post-checkout hook), after it
      // looked for an active record and before it inserts one, until this one has won.
      const gate = pauseCheckouts(otherSource);
      const loser = ensureWorktree(input({ sourcePath: otherSource, worktreesRoot: otherRoot }));
      await gate.reached();
      const winner = await ensureWorktree(input());
      gate.release();
      const lost = await loser;

      expect(winner.adopted).to.equal(false);
      expect(lost.adopted).to.equal(true);
      expect(lost.environment.id).to.equal(winner.environment.id);
      const active = (await listEnvironments(testDb.db.knex, codebaseId)).filter(
        (e) => e.status === 'active',
      );
      expect(active).to.have.length(1);
      expect(worktreePaths(otherSource)).to.have.length(1);
      expect(git(otherSource, 'branch', '--list', 'cairn/*')).to.equal('');
    });

    it('does not adopt an environment a cleanup elsewhere is removing: waits, then builds anew', async () => {
      const logs = captureLogs('debug');
      const first = await ensureWorktree(input());
      await claimForRemovalElsewhere(first.environment.id);
      const next = ensureWorktree(input({ logger: logs.logger }));
      await untilLogged(logs.lines, 'worktree.waiting_for_removal');
      // The other process's cleanup finishes its removal.
      git(fixture.source, 'worktree', 'remove', '--force', first.environment.path);
      await markEnvironmentDestroyed(testDb.db.knex, first.environment.id);

      const { environment, adopted } = await next;
      expect(adopted).to.equal(false);
      expect(environment.id).to.not.equal(first.environment.id);
      expect(git(environment.path, 'rev-parse', '--abbrev-ref', 'HEAD')).to.equal('cairn/task-fix-login');
      const statuses = (await listEnvironments(testDb.db.knex, codebaseId)).map((e) => e.status);
      expect(statuses).to.deep.equal(['destroyed', 'active']);
    });

    it('takes over from a removal whose remover died, after removalWaitMs', async () => {
      const first = await ensureWorktree(input());
      await claimForRemovalElsewhere(first.environment.id);
      const { environment } = await ensureWorktree(input({ removalWaitMs: 0 }));
      expect(environment.id).to.not.equal(first.environment.id);
      expect(environment.path).to.equal(first.environment.path);
      expect(existsSync(environment.path)).to.equal(true);
      const statuses = (await listEnvironments(testDb.db.knex, codebaseId)).map((e) => e.status);
      expect(statuses).to.deep.equal(['destroyed', 'active']);
    });

    it('creates environments for different keys concurrently', async () => {
      const keys = ['a', 'b', 'c', 'd'];
      const results = await Promise.all(keys.map((key) => ensureWorktree(input({ key }))));
      expect(new Set(results.map((result) => result.environment.path)).size).to.equal(keys.length);
      expect(worktreePaths(fixture.source)).to.have.length(keys.length + 1);
    });

    it('works for a codebase registered by local path, without a remote', async () => {
      const local = makeTempRepo({ branch: 'trunk' });
      try {
        const { environment, baseBranch } = await ensureWorktree(input({ sourcePath: local.path }));
        expect(baseBranch).to.deep.equal({ branch: 'trunk', source: 'remote-default' });
        expect(git(environment.path, 'rev-parse', 'HEAD')).to.equal(git(local.path, 'rev-parse', 'trunk'));
      } finally {
        local.cleanup();
      }
    });

    it('refuses to remove a worktree with uncommitted changes unless forced, and keeps the branch', async () => {
      mkdirSync(join(fixture.source, '.cairn'));
      writeFileSync(join(fixture.source, '.cairn/config.yaml'), 'x: 1\n');
      const { environment } = await ensureWorktree(input());

      writeFileSync(join(environment.path, 'README.md'), 'edited\n');
      const refused = await removeWorktree({ db: testDb.db, environment, sourcePath: fixture.source });
      expect(refused).to.deep.equal({
        removed: false,
        reason: 'uncommitted_changes',
        changes: ['README.md'],
      });
      git(environment.path, 'checkout', '--', 'README.md');

      writeFileSync(join(environment.path, 'new-file.txt'), 'untracked work\n');
      expect(await removeWorktree({ db: testDb.db, environment, sourcePath: fixture.source })).to.include({
        removed: false,
      });
      expect(existsSync(environment.path)).to.equal(true);

      rmSync(join(environment.path, 'new-file.txt'));
      // Clean apart from the copied-in .cairn/: removed.
      expect(await removeWorktree({ db: testDb.db, environment, sourcePath: fixture.source })).to.deep.equal({
        removed: true,
      });
      expect(existsSync(environment.path)).to.equal(false);
      expect(worktreePaths(fixture.source)).to.have.length(1);
      const [record] = await listEnvironments(testDb.db.knex, codebaseId);
      expect(record?.status).to.equal('destroyed');
      expect(record?.destroyedAt).to.be.a('string');
      expect(git(fixture.source, 'branch', '--list', environment.branch)).to.contain(environment.branch);
    });

    it('removes a dirty worktree when forced, and a vanished one by record only', async () => {
      const dirty = await ensureWorktree(input({ key: 'dirty' }));
      writeFileSync(join(dirty.environment.path, 'README.md'), 'edited\n');
      const forced = await removeWorktree({
        db: testDb.db,
        environment: dirty.environment,
        sourcePath: fixture.source,
        force: true,
      });
      expect(forced).to.deep.equal({ removed: true });
      expect(existsSync(dirty.environment.path)).to.equal(false);

      const gone = await ensureWorktree(input({ key: 'gone' }));
      rmSync(gone.environment.path, { recursive: true, force: true });
      expect(
        await removeWorktree({ db: testDb.db, environment: gone.environment, sourcePath: fixture.source }),
      ).to.deep.equal({ removed: true });
      expect(worktreePaths(fixture.source)).to.have.length(1);
      const statuses = (await listEnvironments(testDb.db.knex, codebaseId)).map((record) => record.status);
      expect(statuses).to.deep.equal(['destroyed', 'destroyed']);
    });
  });
}

/** `leak.txt` in the source checkout, a symlink to a file outside the repository. */
function symlinkOutside(fixture: RemoteFixture): void {
  const outside = join(fixture.scratch, 'outside.txt');
  writeFileSync(outside, 'secret\n');
  symlinkSync(outside, join(fixture.source, 'leak.txt'));
}
