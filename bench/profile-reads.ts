// Where a read endpoint spends its time: seeds the read benchmark's volume (smaller by default),
// starts a real `cairn start` under the V8 CPU profiler, loads each path given on the command line
// for BENCH_SECONDS (5) s at BENCH_CONNECTIONS (10) connections and prints requests/s, then the
// functions with the most self time over the whole load. A tool for working on speed, not a
// benchmark with targets (bench/reads.ts is that).
//   node bin/run-ts.mjs bench/profile-reads.ts /api/conversations '/api/workflows?cwd={repo}'
// `{repo}` is replaced by a registered repository holding the bundled workflows, `{conversation}`
// and `{run}` by seeded ids. DATABASE_URL profiles on Postgres instead of SQLite.
import autocannon from 'autocannon';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { BUNDLED_WORKFLOWS_DIR } from '../services/workflow-definitions/bundled-library.js';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk } from '../test/support/cairn-process.js';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempRepo } from '../test/support/git-repos.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';
import { seedVolume } from './fixtures/seed-volume.js';
import { callJson, round, type CpuProfile, type ProfileNode } from './support.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TOP = Number(process.env.BENCH_TOP ?? 30);

function frameName(node: ProfileNode): string {
  const frame = node.callFrame;
  const where = frame.url
    ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}`
    : '';
  return `${frame.functionName || '(anonymous)'} ${where}`.trim();
}

/**
 * Self time per function (name and place), in ms, largest first; with BENCH_FOCUS (a part of a
 * function's name), the time spent under each function whose name contains it, by the path of
 * callers that led there, instead.
 */
function selfTimes(profile: CpuProfile): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const focus = process.env.BENCH_FOCUS;
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    let key = frameName(byId.get(id)!);
    if (focus) {
      const stack: string[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at))
        stack.push(frameName(byId.get(at)!));
      const hit = stack.findIndex((name) => name.includes(focus));
      if (hit < 0) return;
      key = stack.slice(hit, hit + 4).join(' < ');
    }
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const paths = process.argv.slice(2);
if (paths.length === 0) throw new Error('name at least one path to load, e.g. /api/conversations');

const home = makeTempHome();
const cwd = makeTempDir();
const profiles = makeTempDir();
const databaseUrl = process.env.DATABASE_URL;
const db = openDatabase({ databaseUrl, sqliteFile: join(home.home, 'cairn.db') });
await migrateToLatest(db.knex);
const seeded = await seedVolume(db.knex, {
  conversations: Number(process.env.BENCH_CONVERSATIONS ?? 10_000),
  runs: Number(process.env.BENCH_RUNS ?? 20_000),
  events: Number(process.env.BENCH_EVENTS ?? 20_000),
});
await db.close();

const port = await freePort();
const env = standaloneCairnEnv(home.home, port, fakeAssistants().env);
if (databaseUrl) env.DATABASE_URL = databaseUrl;
const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profiles.path}`];
const cairn = spawnCairn(['start'], { env, cwd: cwd.path, nodeArgs });
const base = `http://127.0.0.1:${port}`;
const repo = makeTempRepo({ files: { 'README.md': 'profile\n' } });
try {
  await waitForOk(`${base}/health`, cairn, 10 * 60_000);
  mkdirSync(join(repo.path, '.cairn/workflows'), { recursive: true });
  for (const file of readdirSync(BUNDLED_WORKFLOWS_DIR))
    cpSync(join(BUNDLED_WORKFLOWS_DIR, file), join(repo.path, '.cairn/workflows', file));
  await callJson(base, 'POST', '/api/codebases', { path: repo.path });
  const fill = (path: string) =>
    path
      .replace('{repo}', encodeURIComponent(repo.path))
      .replace('{conversation}', seeded.conversationIds[0]!)
      .replace('{run}', seeded.runIds.at(-1)!);
  await autocannon({ url: `${base}/health`, connections: CONNECTIONS, duration: 2 });
  for (const path of paths) {
    const result = await autocannon({
      url: `${base}${fill(path)}`,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    console.log(
      `${path}: ${round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`,
    );
  }
} finally {
  await cairn.stop('SIGINT');
  repo.cleanup();
  home.cleanup();
  cwd.cleanup();
}
// One profile per thread: the server's main thread is the one with the least idle time.
const busiest = readdirSync(profiles.path)
  .map((file) => selfTimes(JSON.parse(readFileSync(join(profiles.path, file), 'utf8')) as CpuProfile))
  .map((times) => ({
    times,
    busyMs: times.filter(([name]) => !name.startsWith('(idle)')).reduce((sum, [, ms]) => sum + ms, 0),
  }))
  .sort((a, b) => b.busyMs - a.busyMs)[0];
if (busiest) {
  console.log(`\nthe busiest thread: ${round(busiest.busyMs)} ms busy; top ${TOP} by self time`);
  for (const [name, ms] of busiest.times.slice(0, TOP))
    console.log(`${round(ms).toString().padStart(8)} ms  ${name}`);
}
profiles.cleanup();
