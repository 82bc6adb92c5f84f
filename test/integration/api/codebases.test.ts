import { expect } from 'chai';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureWorktree } from '../../../services/worktrees/worktrees.js';
import { resetEnvLeakGateLogOnce } from '../../../services/codebases/env-leak-gate.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { git, makeBareRemote, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { startTestCoreApp } from '../../support/core-app.js';
import type { ListeningApp } from '../../support/http.js';
import { captureLogs } from '../../support/logs.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';

const SECRET = 'sk-ant-api03-do-not-print-me-123456';

interface CodebaseBody {
  id: string;
  url: string | null;
  path: string | null;
  sourcePath: string;
  allowEnvKeys: boolean;
  defaultBranch: string | null;
}

for (const kind of databaseKinds()) {
  describe(`codebases API (${kind.name})`, function () {
    this.timeout(5 * 60_000);
    let test: TestDatabase;
    let workers: RunningTestWorkers;
    let server: ListeningApp;
    let home: ReturnType<typeof makeTempDir>;
    let logs: ReturnType<typeof captureLogs>;
    const cleanups: Array<() => void> = [];

    beforeEach(async () => {
      resetEnvLeakGateLogOnce();
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      logs = captureLogs('info');
      const context = testServiceContext(test.db, { home: home.path, logger: logs.logger });
      workers = await startTestWorkers(test.db, { dependencies: context });
      server = await startTestCoreApp(test.db, context, workers);
    });

    afterEach(async () => {
      await server.close();
      await workers.stop();
      await test.dispose();
      for (const cleanup of cleanups.splice(0)) cleanup();
      home.cleanup();
    });

    function repo(files?: Record<string, string>): TempRepo {
      const made = makeTempRepo({ files });
      cleanups.push(made.cleanup);
      return made;
    }

    function bareRemote(files?: Record<string, string>) {
      const source = repo(files);
      git(source.path, 'branch', 'develop');
      const remote = makeBareRemote(source.path);
      cleanups.push(remote.cleanup);
      return remote;
    }

    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    it('registers a local path once (201, then 200) and links source/ to it', async () => {
      const checkout = repo();
      const first = await call('POST', '/api/codebases', { path: checkout.path });
      expect(first.status).to.equal(201);
      const created = (await first.json()) as CodebaseBody;
      expect(created).to.include({
        path: realpathSync(checkout.path),
        url: null,
        allowEnvKeys: false,
        defaultBranch: 'main',
      });
      expect(lstatSync(created.sourcePath).isSymbolicLink()).to.equal(true);
      expect(realpathSync(created.sourcePath)).to.equal(realpathSync(checkout.path));

      const again = await call('POST', '/api/codebases', { path: join(checkout.path, '.') });
      expect(again.status).to.equal(200);
      expect(((await again.json()) as CodebaseBody).id).to.equal(created.id);
      const list = (await (await call('GET', '/api/codebases')).json()) as CodebaseBody[];
      expect(list.map((c) => c.id)).to.deep.equal([created.id]);
      expect(
        ((await (await call('GET', `/api/codebases/${created.id}`)).json()) as CodebaseBody).id,
      ).to.equal(created.id);
    });

    it('clones file:// URLs and bare repository paths through Temporal, once per repository', async () => {
      const remote = bareRemote({ 'README.md': '# remote\n' });
      const first = await call('POST', '/api/codebases', { url: remote.url });
      expect(first.status, await first.clone().text()).to.equal(201);
      const created = (await first.json()) as CodebaseBody;
      expect(created).to.include({ url: remote.url, path: null, defaultBranch: 'main' });
      expect(readFileSync(join(created.sourcePath, 'README.md'), 'utf8')).to.equal('# remote\n');
      expect(git(created.sourcePath, 'remote', 'get-url', 'origin')).to.equal(remote.url);

      const samePlace = await call('POST', '/api/codebases', { url: remote.path });
      expect(samePlace.status).to.equal(200);
      expect(((await samePlace.json()) as CodebaseBody).id).to.equal(created.id);
    });

    it('makes one codebase from concurrent registrations of one URL', async () => {
      const remote = bareRemote();
      const responses = await Promise.all(
        [1, 2, 3, 4].map(() => call('POST', '/api/codebases', { url: remote.url })),
      );
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as CodebaseBody[];
      expect(new Set(bodies.map((b) => b.id)).size).to.equal(1);
      expect(responses.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 201]);
      expect(((await (await call('GET', '/api/codebases')).json()) as unknown[]).length).to.equal(1);
    });

    it('does not let a concurrent registration without consent block one with consent', async () => {
      const remote = bareRemote({ '.env': `CLAUDE_API_KEY=${SECRET}\n` });
      const [withoutConsent, withConsent] = await Promise.all([
        call('POST', '/api/codebases', { url: remote.url }),
        call('POST', '/api/codebases', { url: remote.url, allowEnvKeys: true }),
      ]);
      expect([200, 201], await withConsent.clone().text()).to.include(withConsent.status);
      expect(((await withConsent.json()) as CodebaseBody).allowEnvKeys).to.equal(true);
      expect([200, 422]).to.include(withoutConsent.status);
    });

    it('gives a URL and a local path named alike their own folders when registered at once', async () => {
      const remote = bareRemote({ 'README.md': '# cloned\n' });
      // A checkout called `remote` too: both want <workspaces>/local/remote.
      const named = makeTempDir();
      cleanups.push(named.cleanup);
      const checkout = join(named.path, 'remote');
      git(named.path, 'clone', '--quiet', remote.url, checkout);
      const responses = await Promise.all([
        call('POST', '/api/codebases', { url: remote.url }),
        call('POST', '/api/codebases', { path: checkout }),
      ]);
      expect(responses.map((r) => r.status)).to.deep.equal([201, 201]);
      const [cloned, linked] = (await Promise.all(responses.map((r) => r.json()))) as CodebaseBody[];
      expect(join(cloned!.sourcePath, '..')).to.not.equal(join(linked!.sourcePath, '..'));
      expect(lstatSync(cloned!.sourcePath).isSymbolicLink()).to.equal(false);
      expect(realpathSync(linked!.sourcePath)).to.equal(realpathSync(checkout));
    });

    it('answers 409 workspace_conflict when the workspace holds a source/ Cairn did not put there', async () => {
      const checkout = repo();
      const first = (await (
        await call('POST', '/api/codebases', { path: checkout.path })
      ).json()) as CodebaseBody;
      // The record went, the folder stayed, and its link was replaced by someone's folder.
      await test.db.knex('codebases').where({ id: first.id }).delete();
      rmSync(first.sourcePath);
      mkdirSync(first.sourcePath);
      writeFileSync(join(first.sourcePath, 'keep.txt'), 'mine\n');
      const response = await call('POST', '/api/codebases', { path: checkout.path });
      expect(response.status).to.equal(409);
      expect(((await response.json()) as { code: string }).code).to.equal('workspace_conflict');
      expect(readFileSync(join(first.sourcePath, 'keep.txt'), 'utf8')).to.equal('mine\n');
    });

    it('answers bad registrations with a 4xx that names the problem', async () => {
      const notRepo = makeTempDir();
      cleanups.push(notRepo.cleanup);
      const cases: Array<[unknown, number, string]> = [
        [{}, 400, 'validation_failed'],
        [{ url: 'file:///x', path: '/y' }, 400, 'validation_failed'],
        [{ path: notRepo.path }, 400, 'not_a_git_repository'],
        [{ path: join(notRepo.path, 'missing') }, 400, 'path_not_found'],
        [{ path: 'relative/dir' }, 400, 'path_not_found'],
        [{ url: 'ftp://example.com/repo' }, 400, 'invalid_url'],
        [{ url: 'file:///no/such/repo.git' }, 422, 'clone_failed'],
        [{ path: 42 }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const response = await call('POST', '/api/codebases', body);
        const problem = (await response.json()) as { code: string; errors?: Array<{ path: string }> };
        expect(response.status, JSON.stringify(body)).to.equal(status);
        expect(problem.code, JSON.stringify(body)).to.equal(code);
        expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
      const bare = bareRemote();
      const barePath = await call('POST', '/api/codebases', { path: bare.path });
      expect(barePath.status).to.equal(400);
      expect(((await barePath.json()) as { code: string }).code).to.equal('bare_repository');
    });

    it("reports a failed clone with git's message and never the credentials", async () => {
      const response = await call('POST', '/api/codebases', {
        url: 'https://someone:hunter2-secret@127.0.0.1:1/acme/app.git',
      });
      const text = await response.text();
      expect(response.status, text).to.equal(422);
      expect(JSON.parse(text)).to.include({ code: 'clone_failed' });
      expect(text).to.match(/git clone of https:\/\/127\.0\.0\.1:1\/acme\/app\.git failed/);
      expect(text).to.not.include('hunter2');
      expect(logs.text()).to.not.include('hunter2');
    });

    it('blocks assistant keys in env files unless consented, and audits consent changes', async () => {
      const leaky = repo({ 'README.md': 'x\n', '.env.local': `ANTHROPIC_API_KEY=${SECRET}\nOTHER=1\n` });
      const blocked = await call('POST', '/api/codebases', { path: leaky.path });
      const problemText = await blocked.text();
      expect(blocked.status).to.equal(422);
      const problem = JSON.parse(problemText) as {
        code: string;
        detail: string;
        files: Array<{ file: string; keys: string[] }>;
      };
      expect(problem.code).to.equal('env_leak_detected');
      expect(problem.files).to.deep.equal([{ file: '.env.local', keys: ['ANTHROPIC_API_KEY'] }]);
      expect(problem.detail)
        .to.include('.env.local')
        .and.include('ANTHROPIC_API_KEY')
        .and.include('allowEnvKeys');
      expect(problemText).to.not.include(SECRET);
      expect(((await (await call('GET', '/api/codebases')).json()) as unknown[]).length).to.equal(0);

      const consented = await call('POST', '/api/codebases', { path: leaky.path, allowEnvKeys: true });
      expect(consented.status).to.equal(201);
      const codebase = (await consented.json()) as CodebaseBody;
      expect(codebase.allowEnvKeys).to.equal(true);

      const revoke = await fetch(`${server.url}/api/codebases/${codebase.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-forwarded-user': 'alice' },
        body: JSON.stringify({ allowEnvKeys: false }),
      });
      expect(revoke.status).to.equal(200);
      expect(((await revoke.json()) as CodebaseBody).allowEnvKeys).to.equal(false);
      const audit = logs.lines.filter((l) => String(l.event ?? '').startsWith('env_leak_consent_'));
      expect(audit.map((l) => l.event)).to.deep.equal([
        'env_leak_consent_granted',
        'env_leak_consent_revoked',
      ]);
      expect(audit[1]).to.include({
        level: 40,
        codebaseId: codebase.id,
        actor: 'alice',
        scanStatus: 'leaks_found',
      });
      expect(audit[1]!.matchedKeys).to.deep.equal(['ANTHROPIC_API_KEY']);
      expect(audit[1]!.scannedFiles).to.deep.equal(['.env.local']);
      expect(logs.text()).to.not.include(SECRET);

      // A grant after the checkout vanished is still audited, and is no 5xx.
      rmSync(leaky.path, { recursive: true, force: true });
      const grant = await call('PATCH', `/api/codebases/${codebase.id}`, { allowEnvKeys: true });
      expect(grant.status).to.equal(200);
      const lastAudit = logs.lines
        .filter((l) => String(l.event ?? '').startsWith('env_leak_consent_'))
        .at(-1);
      expect(lastAudit).to.include({ event: 'env_leak_consent_granted', scanStatus: 'unreadable' });
    });

    it('lets the repository config switch the gate off, logging env_leak_gate_disabled', async () => {
      const leaky = repo({
        '.env': `OPENAI_API_KEY=${SECRET}\n`,
        '.cairn/config.yaml': 'allow_target_repo_keys: true\n',
      });
      const response = await call('POST', '/api/codebases', { path: leaky.path });
      expect(response.status).to.equal(201);
      const disabled = logs.lines.filter(
        (l) => l.event === 'env_leak_gate_disabled' || l.msg === 'env_leak_gate_disabled',
      );
      expect(disabled).to.have.length(1);
    });

    it('answers unknown ids with 404 and bad PATCH bodies with 400', async () => {
      for (const [method, path] of [
        ['GET', '/api/codebases/nope'],
        ['PATCH', '/api/codebases/nope'],
        ['DELETE', '/api/codebases/nope'],
        ['GET', '/api/codebases/nope/environments'],
      ] as const) {
        const response = await call(method, path, method === 'PATCH' ? { allowEnvKeys: true } : undefined);
        expect(response.status, `${method} ${path}`).to.equal(404);
      }
      const checkout = repo();
      const { id } = (await (
        await call('POST', '/api/codebases', { path: checkout.path })
      ).json()) as CodebaseBody;
      for (const body of [{}, { allowEnvKeys: 'yes' }, { unknown: 1 }]) {
        const response = await call('PATCH', `/api/codebases/${id}`, body);
        expect(response.status, JSON.stringify(body)).to.equal(400);
      }
    });

    it('lists environments and deletes worktrees and managed folders, never the user checkout', async () => {
      const checkout = repo({ 'app.txt': 'mine\n' });
      const local = (await (
        await call('POST', '/api/codebases', { path: checkout.path })
      ).json()) as CodebaseBody;
      const workspaceRoot = join(local.sourcePath, '..');
      const { environment } = await ensureWorktree({
        db: test.db,
        codebaseId: local.id,
        sourcePath: local.sourcePath,
        worktreesRoot: join(workspaceRoot, 'worktrees'),
        kind: 'task',
        key: 'try-it',
      });
      writeFileSync(join(environment.path, 'scratch.txt'), 'uncommitted work\n');
      // A second worktree whose branch holds a commit found nowhere else: its branch must stay.
      const { environment: committed } = await ensureWorktree({
        db: test.db,
        codebaseId: local.id,
        sourcePath: local.sourcePath,
        worktreesRoot: join(workspaceRoot, 'worktrees'),
        kind: 'task',
        key: 'keep-me',
      });
      writeFileSync(join(committed.path, 'feature.txt'), 'work in progress\n');
      git(committed.path, 'add', 'feature.txt');
      git(committed.path, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'wip');
      const environments = (await (
        await call('GET', `/api/codebases/${local.id}/environments`)
      ).json()) as Array<{
        id: string;
        status: string;
        branch: string;
      }>;
      expect(environments).to.have.length(2);
      expect(environments.find((found) => found.id === environment.id)).to.include({
        id: environment.id,
        status: 'active',
        branch: 'cairn/task-try-it',
      });

      // Two DELETEs at once: one deletes, the other finds nothing to delete.
      const [one, two] = await Promise.all([
        call('DELETE', `/api/codebases/${local.id}`),
        call('DELETE', `/api/codebases/${local.id}`),
      ]);
      expect([one.status, two.status].sort()).to.deep.equal([200, 404]);
      const deleted = one.status === 200 ? one : two;
      expect(await deleted.json()).to.deep.include({
        deleted: true,
        removedWorktrees: 2,
        removedWorkspace: true,
        removedBranches: ['cairn/task-try-it'],
        keptBranches: [{ branch: 'cairn/task-keep-me', uniqueCommits: 1 }],
      });
      const branches = git(checkout.path, 'branch', '--list', 'cairn/*');
      expect(branches).to.include('cairn/task-keep-me').and.not.include('cairn/task-try-it');
      expect(existsSync(environment.path)).to.equal(false);
      expect(existsSync(workspaceRoot)).to.equal(false);
      expect(readFileSync(join(checkout.path, 'app.txt'), 'utf8')).to.equal('mine\n');
      expect(git(checkout.path, 'worktree', 'list')).to.not.include('try-it');
      expect((await call('GET', `/api/codebases/${local.id}`)).status).to.equal(404);

      const remote = bareRemote();
      const cloned = (await (
        await call('POST', '/api/codebases', { url: remote.url })
      ).json()) as CodebaseBody;
      expect((await call('DELETE', `/api/codebases/${cloned.id}`)).status).to.equal(200);
      expect(existsSync(cloned.sourcePath)).to.equal(false);
      expect(existsSync(remote.path)).to.equal(true);
    });
  });
}
