// Read paths, message intake and memory of a real `cairn start` holding a large data set.
// For each database (SQLite; Postgres too when BENCH_DATABASE_URL or TEST_DATABASE_URL names a
// server), it seeds BENCH_CONVERSATIONS (10k) conversations, BENCH_RUNS (100k) runs and
// BENCH_EVENTS (1M) journal rows, registers a repository with six workflows, starts Cairn on
// that database and then, in one run, measures with autocannon (BENCH_CONNECTIONS 10 connections,
// BENCH_SECONDS 3 s each):
//   - GET /health, the do-nothing route every other figure is a ratio of;
//   - every read endpoint: requests/s as a share of /health loaded beside it, the median of
//     BENCH_PAIRS (3) alternating pairs, and p99 latency;
//   - POST /api/conversations/{id}/message to its 202, sequentially (BENCH_POSTS 200): p50, p99;
//   - resident memory of Cairn's processes and of the Temporal server: 3 s after start, idle a
//     minute later (BENCH_IDLE_SETTLE_MS), and after the load.
// Targets (issue 12 with AMENDMENTS A.4): single-record and in-memory reads >= 50% of /health;
// 50-row pages >= 25% (SQLite) / 15% (Postgres); list p99 < 25 ms; POST -> 202 p50 < 10 ms;
// Cairn's own processes < 200 MB idle, everything < 350 MB idle and < 500 MB after the load.
// BENCH_CAIRN_BIN runs another checkout's bin/cairn.mjs (for before/after figures);
// BENCH_DATABASES (sqlite,postgres) names the databases to measure.
import autocannon from 'autocannon';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { BUNDLED_WORKFLOWS_DIR } from '../services/workflow-definitions/bundled-library.js';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk } from '../test/support/cairn-process.js';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempRepo } from '../test/support/git-repos.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';
import { seedVolume, type Volume } from './fixtures/seed-volume.js';
import { callJson, median, percentile, printFigures, round } from './support.js';

const VOLUME: Volume = {
  conversations: Number(process.env.BENCH_CONVERSATIONS ?? 10_000),
  runs: Number(process.env.BENCH_RUNS ?? 100_000),
  events: Number(process.env.BENCH_EVENTS ?? 1_000_000),
};
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const POSTS = Number(process.env.BENCH_POSTS ?? 200);
const IDLE_SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_MS ?? 60_000);
// Without it, this checkout's `cairn` as `npm start` runs it (bin/cairn, the launcher).
const OTHER_CAIRN_BIN = process.env.BENCH_CAIRN_BIN;

/** Resident memory in MB of a process and all its descendants, split into Temporal and the rest. */
function residentMemory(rootPid: number): {
  cairnMb: number;
  /** The part of cairnMb that is mapped files: node and its libraries, and the SQLite file the reader maps. */
  cairnFileMb: number;
  temporalMb: number;
  totalMb: number;
} {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  const rss = new Map<number, number>();
  const rssFile = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const pid = Number(entry);
      parents.set(pid, Number(/PPid:\s+(\d+)/.exec(status)?.[1]));
      rss.set(pid, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rssFile.set(pid, Number(/RssFile:\s+(\d+)/.exec(status)?.[1] ?? 0));
      commands.set(pid, readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents)
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  let cairnKb = 0;
  let cairnFileKb = 0;
  let temporalKb = 0;
  for (const pid of tree) {
    const kb = rss.get(pid) ?? 0;
    if (/temporal\S* server start-dev/.test(commands.get(pid) ?? '')) temporalKb += kb;
    else {
      cairnKb += kb;
      cairnFileKb += rssFile.get(pid) ?? 0;
    }
  }
  const mb = (kb: number) => round(kb / 1024);
  return {
    cairnMb: mb(cairnKb),
    cairnFileMb: mb(cairnFileKb),
    temporalMb: mb(temporalKb),
    totalMb: mb(cairnKb + temporalKb),
  };
}

async function load(url: string) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${url}: ${failed} failed requests during the load`);
  return {
    requestsPerSecond: round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

/**
 * A read loaded beside the no-op, PAIRS times, the two in turn (the no-op first, then the read
 * first, and so on): each pair's share is the read's requests/s over its own no-op's. On a small
 * shared machine the no-op moves by 10-30% within a minute, so one pair can land far from
 * another; the median of alternating pairs is what the figures report.
 */
async function loadBesideNoop(readUrl: string, noopUrl: string) {
  const pairs = [];
  for (let index = 0; index < PAIRS; index += 1) {
    const noopFirst = index % 2 === 0;
    const first = await load(noopFirst ? noopUrl : readUrl);
    const second = await load(noopFirst ? readUrl : noopUrl);
    const [noop, read] = noopFirst ? [first, second] : [second, first];
    pairs.push({ noop, read, share: read.requestsPerSecond / noop.requestsPerSecond });
  }
  return pairs;
}

/** A repository with six workflows in .cairn/workflows/, registered through the API. */
async function registerRepository(base: string) {
  const repo = makeTempRepo({ files: { 'README.md': 'bench\n' } });
  const folder = join(repo.path, '.cairn/workflows');
  mkdirSync(folder, { recursive: true });
  for (const file of readdirSync(BUNDLED_WORKFLOWS_DIR))
    cpSync(join(BUNDLED_WORKFLOWS_DIR, file), join(folder, file));
  repo.commit({}, 'workflows');
  const codebase = await callJson<{ id: string }>(base, 'POST', '/api/codebases', { path: repo.path });
  return { repo, codebaseId: codebase.id };
}

async function measurePosts(base: string) {
  const conversation = await callJson<{ platform_conversation_id: string }>(
    base,
    'POST',
    '/api/conversations',
    {
      title: 'intake',
    },
  );
  const path = `/api/conversations/${conversation.platform_conversation_id}/message`;
  const times: number[] = [];
  for (let index = 0; index < POSTS; index += 1) {
    const started = performance.now();
    await callJson(base, 'POST', path, { message: `[fake:reply ok ${index}]` });
    times.push(performance.now() - started);
  }
  return {
    posts: POSTS,
    p50Ms: round(median(times)),
    p99Ms: round(percentile(times, 0.99)),
    targetP50Ms: 10,
  };
}

async function measureDatabase(label: string, databaseUrl: string | undefined) {
  const home = makeTempHome();
  const cwd = makeTempDir();
  const fakes = fakeAssistants();
  const db = openDatabase({ databaseUrl, sqliteFile: join(home.home, 'cairn.db') });
  const seedStarted = performance.now();
  await migrateToLatest(db.knex);
  const seeded = await seedVolume(db.knex, VOLUME);
  await db.close();
  const seedSeconds = round((performance.now() - seedStarted) / 1000);

  const port = await freePort();
  const env = standaloneCairnEnv(home.home, port, fakes.env);
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const cairn = spawnCairn(['start'], {
    env,
    cwd: cwd.path,
    ...(OTHER_CAIRN_BIN && { bin: OTHER_CAIRN_BIN }),
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${base}/health`, cairn, 15 * 60_000);
    const { repo, codebaseId } = await registerRepository(base);
    // Idle twice: just after start, and a minute later, once V8 has given back start-up garbage.
    await sleep(3000);
    const idleAtStart = residentMemory(cairn.child.pid!);
    await sleep(IDLE_SETTLE_MS);
    const idle = residentMemory(cairn.child.pid!);
    const conversationId = seeded.conversationIds[0]!;
    const runId = seeded.runIds[seeded.runIds.length - 1]!;
    const cwdQuery = `cwd=${encodeURIComponent(repo.path)}`;
    const reads: Record<string, { path: string; kind: 'single' | 'page' }> = {
      health: { path: '/api/health', kind: 'single' },
      conversationsList: { path: '/api/conversations', kind: 'page' },
      conversation: { path: `/api/conversations/${conversationId}`, kind: 'single' },
      messages: { path: `/api/conversations/${conversationId}/messages`, kind: 'page' },
      workflowsList: { path: `/api/workflows?${cwdQuery}`, kind: 'single' },
      commandsList: { path: `/api/commands?${cwdQuery}`, kind: 'single' },
      codebasesList: { path: '/api/codebases', kind: 'page' },
      codebase: { path: `/api/codebases/${codebaseId}`, kind: 'single' },
      runsList: { path: '/api/workflows/runs', kind: 'page' },
      runDetail: { path: `/api/workflows/runs/${runId}`, kind: 'single' },
      dashboardRuns: { path: '/api/dashboard/runs', kind: 'page' },
    };
    await load(`${base}/health`); // warm-up: the first seconds of a fresh process are slower
    const noop = await load(`${base}/health`);
    const endpoints: Record<string, unknown> = {};
    for (const [name, read] of Object.entries(reads)) {
      const pairs = await loadBesideNoop(`${base}${read.path}`, `${base}/health`);
      const share = median(pairs.map((pair) => pair.share));
      const p99Ms = median(pairs.map((pair) => pair.read.p99Ms));
      const target = read.kind === 'single' ? 0.5 : label === 'sqlite' ? 0.25 : 0.15;
      endpoints[name] = {
        requestsPerSecond: round(median(pairs.map((pair) => pair.read.requestsPerSecond))),
        p50Ms: median(pairs.map((pair) => pair.read.p50Ms)),
        p99Ms,
        worstP99Ms: Math.max(...pairs.map((pair) => pair.read.p99Ms)),
        noopBeside: pairs.map((pair) => pair.noop.requestsPerSecond),
        pairShares: pairs.map((pair) => Math.round(pair.share * 1000) / 1000),
        shareOfNoop: Math.round(share * 1000) / 1000,
        target,
        met: share >= target && (read.kind === 'single' || p99Ms < 25),
      };
    }
    const intake = await measurePosts(base);
    const afterLoad = residentMemory(cairn.child.pid!);
    repo.cleanup();
    return {
      database: label,
      volume: VOLUME,
      seedSeconds,
      noop,
      endpoints,
      intake,
      memory: { idleAtStart, idle, afterLoad },
    };
  } finally {
    await cairn.stop('SIGTERM');
    home.cleanup();
    cwd.cleanup();
  }
}

/** A fresh database on the benchmark's Postgres server, dropped afterwards. */
async function withPostgresDatabase<T>(serverUrl: string, measure: (url: string) => Promise<T>): Promise<T> {
  const name = `cairn_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return await measure(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const databases = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const results = [];
if (databases.includes('sqlite')) results.push(await measureDatabase('sqlite', undefined));
const postgresServer = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (postgresServer && databases.includes('postgres'))
  results.push(await withPostgresDatabase(postgresServer, (url) => measureDatabase('postgres', url)));
printFigures('reads', {
  command: `node bin/run-ts.mjs bench/reads.ts (cairn: ${OTHER_CAIRN_BIN ?? 'bin/cairn'}, ${CONNECTIONS} connections, ${SECONDS} s per load, ${PAIRS} pairs per read)`,
  results,
});
