import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { readdirSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../worker/temporal/ports.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import type { SystemCheckResult } from '../../workflows/system/system-check.js';
import { spawnCairn, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { startFakeTelegram, type FakeTelegram } from '../support/fakes/telegram-bot-api.js';
import { rawRequest } from '../support/http.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';

/** Processes whose command line mentions `needle` (the embedded Temporal server of one home). */
function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(join('/proc', entry, 'cmdline'), 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function childEnv(home: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extra,
    CAIRN_HOME: home,
    PORT: String(port),
    LOG_LEVEL: 'info',
  };
  delete env.TEMPORAL_ADDRESS;
  delete env.DATABASE_URL;
  for (const name of ['HOST', 'WEB_UI_ORIGIN', 'ALLOWED_HOSTS', 'IS_SANDBOX', 'CLAUDE_CODE_BUBBLEWRAP'])
    delete env[name];
  return env;
}

/** The machine's addresses other than loopback, where a default start must not be reachable. */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.internal && info.family === 'IPv4' ? [info.address] : []));
}

/**
 * Without HOST, WEB_UI_ORIGIN or ALLOWED_HOSTS the service listens on loopback only, refuses a
 * rebinding host name and refuses a change sent by a page of another site (AMENDMENTS B "13").
 */
async function expectOnlyLocalSites(port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  for (const address of externalAddresses()) {
    const reached = await rawRequest(`http://${address}:${port}/health`).then(
      () => true,
      () => false,
    );
    expect(reached, `reachable on ${address}`).to.equal(false);
  }
  const rebound = await rawRequest(`${base}/api/health`, { headers: { Host: `attacker.example:${port}` } });
  expect(rebound.status).to.equal(403);
  const crossSite = await rawRequest(`${base}/api/conversations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: 'https://attacker.example' },
    body: JSON.stringify({ title: 'planted' }),
  });
  expect(crossSite.status).to.equal(403);
  const listed = (await (await fetch(`${base}/api/conversations`)).json()) as Array<{ title: string }>;
  expect(listed.map((conversation) => conversation.title)).to.not.include('planted');
}

/** The adapter started with the service: it shows in the health and answers a chat command. */
async function expectTelegramDoor(port: number, telegram: FakeTelegram): Promise<void> {
  const health = async () =>
    (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as {
      adapters: string[];
      chat: { telegram: { status: string } };
    };
  for (const deadline = Date.now() + 30_000; (await health()).chat.telegram.status !== 'ready';) {
    if (Date.now() > deadline) throw new Error(`telegram never ready: ${JSON.stringify(await health())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await health()).adapters).to.deep.equal(['web', 'telegram']);
  telegram.pushMessage({ chatId: 7, userId: 7, text: '/help' });
  const [answer] = await telegram.waitFor(
    () => (telegram.messages(7).length > 0 ? telegram.messages(7) : undefined),
    'the help',
    30_000,
  );
  expect(answer!.text).to.contain('/workflow run');
}

describe('cairn start (the whole service in one process)', function () {
  // A first run may build the Temporal CLI before anything answers.
  this.timeout(20 * 60_000);

  const home = makeTempHome();
  const cwd = makeTempDir();
  let cairn: CairnProcess | undefined;
  let telegram: FakeTelegram;

  before(async () => {
    telegram = await startFakeTelegram();
  });

  after(async () => {
    // SIGTERM, so that a test failing half-way leaves no Temporal server behind (a SIGKILL would).
    await cairn?.stop('SIGTERM');
    await telegram?.close();
    home.cleanup();
    cwd.cleanup();
  });

  async function startCairn(port: number): Promise<{ temporalAddress: string }> {
    // A chat token switches its adapter on: the Telegram door starts with the service.
    const chat = { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot };
    cairn = spawnCairn(['start'], { env: childEnv(home.home, port, chat), cwd: cwd.path });
    await waitForOk(`http://127.0.0.1:${port}/health`, cairn, 15 * 60_000);
    const match = /temporal\s+(\S+) \(embedded/.exec(cairn.output());
    expect(match, cairn.output()).to.not.equal(null);
    return { temporalAddress: match![1]! };
  }

  async function withClient<T>(address: string, body: (client: Client) => Promise<T>): Promise<T> {
    const connection = await Connection.connect({ address });
    try {
      return await body(new Client({ connection }));
    } finally {
      await connection.close();
    }
  }

  it('serves HTTP, runs workflows, stops everything on SIGTERM and finds its data again', async () => {
    const port = await freePort();
    const first = await startCairn(port);
    expect(cairn!.output()).to.include(`http://127.0.0.1:${port}`);
    expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).to.include({
      status: 'ok',
      database: 'sqlite',
    });
    await expectOnlyLocalSites(port);
    await expectTelegramDoor(port, telegram);
    // The launcher (bin/cairn) became this node process, with its malloc settings.
    const environment = readFileSync(`/proc/${cairn!.child.pid}/environ`, 'utf8').split('\0');
    expect(readFileSync(`/proc/${cairn!.child.pid}/comm`, 'utf8').trim()).to.equal('node');
    expect(environment).to.include.members([
      'MALLOC_ARENA_MAX=2',
      'MALLOC_TRIM_THRESHOLD_=131072',
      'CAIRN_MALLOC_DEFAULTS=MALLOC_ARENA_MAX,MALLOC_TRIM_THRESHOLD_',
    ]);
    // Run as root without a declared sandbox, Claude Code would refuse every turn: the banner says so.
    expect(cairn!.output().includes('Claude Code will refuse every Claude turn')).to.equal(
      process.getuid?.() === 0,
    );

    const workflowId = `e2e-system-check-${port}`;
    const result = (await withClient(first.temporalAddress, (client) =>
      client.workflow.execute('systemCheck', { taskQueue: DEFAULT_TASK_QUEUE, workflowId, args: [] }),
    )) as SystemCheckResult;
    expect(result.database).to.deep.equal({ dialect: 'sqlite', ok: true });

    const temporalDb = join(home.home, 'temporal.db');
    expect(processesMentioning(temporalDb)).to.have.length(1);
    expect(await cairn!.stop('SIGTERM')).to.equal(0);
    expect(processesMentioning(temporalDb), 'the embedded Temporal server stopped too').to.deep.equal([]);

    const second = await startCairn(port);
    expect(cairn!.output()).to.include('"migrationsApplied":[]');
    const description = await withClient(second.temporalAddress, (client) =>
      client.workflow.getHandle(workflowId).describe(),
    );
    expect(description.status.name).to.equal('COMPLETED');
    expect(await cairn!.stop('SIGTERM')).to.equal(0);
    expect(processesMentioning(temporalDb)).to.deep.equal([]);
  });

  it('after a kill -9, the next start stops the orphaned Temporal server and reuses its data', async () => {
    const port = await freePort();
    const temporalDb = join(home.home, 'temporal.db');
    const first = await startCairn(port);
    const workflowId = `e2e-after-crash-${port}`;
    await withClient(first.temporalAddress, (client) =>
      client.workflow.execute('systemCheck', { taskQueue: DEFAULT_TASK_QUEUE, workflowId, args: [] }),
    );
    expect(await cairn!.stop('SIGKILL')).to.equal('SIGKILL');
    const orphans = processesMentioning(temporalDb);
    expect(orphans, 'the Temporal server outlives a SIGKILLed parent').to.have.length(1);

    const second = await startCairn(port);
    expect(cairn!.output()).to.include('left running by an earlier Cairn');
    const servers = processesMentioning(temporalDb);
    expect(servers).to.have.length(1);
    expect(servers[0]).to.not.equal(orphans[0]);
    const description = await withClient(second.temporalAddress, (client) =>
      client.workflow.getHandle(workflowId).describe(),
    );
    expect(description.status.name).to.equal('COMPLETED');
    expect(await cairn!.stop('SIGTERM')).to.equal(0);
    expect(processesMentioning(temporalDb)).to.deep.equal([]);
  });
});
