import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { join } from 'node:path';
import { freePort } from '../../worker/temporal/ports.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import type { SystemCheckResult } from '../../workflows/system/system-check.js';
import { databaseKinds } from '../support/databases.js';
import { runCairn, spawnCairn, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

function baseEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_HOME: home, LOG_LEVEL: 'warn', ...extra };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  return env;
}

describe('cairn api and cairn worker (split for scale-out)', function () {
  this.timeout(20 * 60_000);

  for (const kind of databaseKinds()) {
    it(`share one database and one Temporal server (${kind.name})`, async () => {
      const temporal = await testTemporal();
      const home = makeTempHome();
      const cwd = makeTempDir();
      const database = await kind.create({ migrate: false });
      const processes: CairnProcess[] = [];
      try {
        const port = await freePort();
        const env = baseEnv(home.home, {
          TEMPORAL_ADDRESS: temporal.endpoint.address,
          PORT: String(port),
          ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
        });
        const worker = spawnCairn(['worker'], { env, cwd: cwd.path });
        processes.push(worker);
        const api = spawnCairn(['api'], { env, cwd: cwd.path });
        processes.push(api);
        await waitForOk(`http://127.0.0.1:${port}/health/db`, api, 120_000);
        const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as {
          database: string;
        };
        expect(health.database).to.equal(kind.name);

        // The worker process answers workflows on the default queue of the shared server.
        const result = (await temporal.client.workflow.execute('systemCheck', {
          taskQueue: DEFAULT_TASK_QUEUE,
          workflowId: `roles-${kind.name}-${port}`,
          args: [],
          // Fail rather than wait forever if the worker process is not serving the queue.
          workflowExecutionTimeout: '2 minutes',
        })) as SystemCheckResult;
        expect(result.database).to.deep.equal({ dialect: kind.name, ok: true });
        expect(result.coreWorker.pid).to.equal(worker.child.pid);

        expect(await api.stop()).to.equal(0);
        expect(await worker.stop()).to.equal(0);
      } finally {
        for (const p of processes) await p.stop('SIGKILL');
        await database.dispose();
        home.cleanup();
        cwd.cleanup();
      }
    });
  }
});

describe('cairn migrate and cairn doctor', function () {
  this.timeout(120_000);
  const home = makeTempHome();
  const cwd = makeTempDir();
  after(() => {
    home.cleanup();
    cwd.cleanup();
  });

  it('migrate applies once, then reports up to date; --status lists pending', async () => {
    const env = baseEnv(home.home);
    const options = { env, cwd: cwd.path };
    expect((await runCairn(['migrate', '--status'], options)).output).to.include('pending: 0001-core-tables');
    const first = await runCairn(['migrate'], options);
    expect(first.code).to.equal(0);
    expect(first.output).to.include('applied: 0001-core-tables');
    expect((await runCairn(['migrate'], options)).output).to.include('already up to date');
    expect((await runCairn(['migrate', '--status'], options)).output).to.include('up to date');
  });

  it('doctor reports each check as JSON', async () => {
    const { code, output } = await runCairn(['doctor', '--json'], { env: baseEnv(home.home), cwd: cwd.path });
    const { checks } = JSON.parse(output) as { checks: Array<{ name: string; status: string }> };
    expect(checks.map((c) => c.name)).to.include.members([
      'config',
      'home',
      'database',
      'temporal',
      'git',
      'claude',
      'codex',
    ]);
    expect(checks.find((c) => c.name === 'git')?.status).to.equal('ok');
    expect(code).to.equal(checks.some((c) => c.status === 'fail') ? 1 : 0);
  });

  it('doctor only looks: on a home that does not exist yet it creates nothing', async () => {
    const fresh = join(cwd.path, 'not-yet', '.cairn');
    const { output } = await runCairn(['doctor', '--json'], { env: baseEnv(fresh), cwd: cwd.path });
    const { checks } = JSON.parse(output) as {
      checks: Array<{ name: string; status: string; detail: string }>;
    };
    expect(checks.find((c) => c.name === 'home')).to.deep.include({
      status: 'ok',
      detail: `${fresh} (not created yet: cairn start creates it)`,
    });
    expect(checks.find((c) => c.name === 'database')?.detail).to.contain('not created yet');
    expect(existsSync(join(cwd.path, 'not-yet')), 'nothing created').to.equal(false);
  });

  it('doctor fails on an unreachable database, says how to fix it, and never prints the password', async () => {
    const env = baseEnv(home.home, { DATABASE_URL: 'postgres://cairn:sekret-pw@127.0.0.1:1/cairn' });
    const { code, output } = await runCairn(['doctor'], { env, cwd: cwd.path });
    expect(code).to.equal(1);
    expect(output).to.match(/✖ database: postgres 127\.0\.0\.1:1\/cairn/);
    expect(output).to.include('check DATABASE_URL');
    expect(output).to.not.include('sekret-pw');
  });

  it('doctor names a bad environment variable', async () => {
    const env = baseEnv(home.home, { MAX_CONCURRENT_CONVERSATIONS: 'lots' });
    const { code, output } = await runCairn(['doctor'], { env, cwd: cwd.path });
    expect(code).to.equal(1);
    expect(output).to.include('MAX_CONCURRENT_CONVERSATIONS');
  });

  it('doctor reports a config file problem by file and key', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(home.home, 'config.yaml'), 'concurrency:\n  maxConversations: zero\n');
    const { output } = await runCairn(['doctor'], { env: baseEnv(home.home), cwd: cwd.path });
    expect(output).to.match(/! config: .*config\.yaml.*concurrency\.maxConversations/);
  });

  it('drops values auto-loaded from the working directory .env before validating them', async () => {
    const { writeFileSync } = await import('node:fs');
    const repoDir = makeTempDir();
    try {
      writeFileSync(join(repoDir.path, '.env'), 'LOG_LEVEL=verbose\n');
      const env = baseEnv(home.home, { LOG_LEVEL: 'verbose' });
      const { code, output } = await runCairn(['migrate', '--status'], { env, cwd: repoDir.path });
      expect(code, output).to.equal(0);
    } finally {
      repoDir.cleanup();
    }
  });

  it('reports a bad variable as a configuration error, without a stack trace', async () => {
    const { code, output } = await runCairn(['migrate'], {
      env: baseEnv(home.home, { PORT: 'abc' }),
      cwd: cwd.path,
    });
    expect(code).to.equal(2);
    expect(output).to.include('configuration error').and.include('PORT');
    expect(output).to.not.match(/\n\s+at /);
  });
});
