import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseBranchError } from '../../../activities/git/base-branch.js';
import { environmentBranch } from '../../../activities/git/branch-names.js';
import { CopyFilesError } from '../../../activities/git/copy-files.js';
import { gitSucceeds } from '../../../activities/git/run-git.js';
import { hasUncommittedChanges } from '../../../activities/git/worktree-status.js';
import {
  WorktreeError,
  ensureWorktree,
  removeWorktree,
  type EnsureWorktreeInput,
} from '../../../activities/git/worktrees.js';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { listEnvironments } from '../../../db/repositories/isolation-environments.js';
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
      const second = await ensureWorktree(input({ kind: 'thread', key: 'chat:1' }));
      expect(second.adopted).to.equal(true);
      expect(second.environment.id).to.equal(first.environment.id);
      expect(second.environment.path).to.equal(first.environment.path);
      expect(Date.parse(second.environment.lastActivityAt)).to.be.at.least(
        Date.parse(first.environment.lastActivityAt),
      );
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
      const results = await Promise.all(Array.from({ length: 5 }, () => ensureWorktree(input())));
      const ids = new Set(results.map((result) => result.environment.id));
      expect(ids.size).to.equal(1);
      expect(results.filter((result) => !result.adopted)).to.have.length(1);
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
      const [a, b] = await Promise.all([
        ensureWorktree(input()),
        ensureWorktree(input({ sourcePath: otherSource, worktreesRoot: otherRoot })),
      ]);
      expect(a.environment.id).to.equal(b.environment.id);
      expect([a.adopted, b.adopted].sort()).to.deep.equal([false, true]);
      const active = (await listEnvironments(testDb.db.knex, codebaseId)).filter(
        (e) => e.status === 'active',
      );
      expect(active).to.have.length(1);
      const loserSource = a.adopted ? fixture.source : otherSource;
      expect(worktreePaths(loserSource)).to.have.length(1);
      expect(git(loserSource, 'branch', '--list', 'cairn/*')).to.equal('');
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
