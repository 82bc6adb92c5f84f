// What tracing costs the reads (issue 24's target, AMENDMENTS 24: metrics and tracing together
// under 5% of read throughput at the default sampling of 10%, nothing measurable when off).
// Seeds one SQLite database (BENCH_CONVERSATIONS 2k conversations, BENCH_RUNS 20k runs,
// BENCH_EVENTS 200k journal rows), copies it into three homes and starts three `cairn start`
// side by side on them: tracing off (metrics on, as always), tracing on at the default sampling,
// and tracing on keeping every trace (always_on), the last two exporting OTLP/protobuf to a sink
// on loopback that accepts and drops what it is sent. Then, in BENCH_ROUNDS (3) rounds, each
// round loading the three in turn with autocannon (BENCH_CONNECTIONS 10 connections,
// BENCH_SECONDS 5 s per endpoint), it measures four reads: the no-op /health, one conversation,
// a page of conversations and one run with its events. It prints each configuration's median
// requests/s and CPU time per request (of Cairn's process, from /proc) per read, and their ratios
// to tracing off; the target is judged on CPU per request, which a busy machine disturbs least. BENCH_BASELINE_BIN (another checkout's
// bin/cairn.mjs, say one from before tracing) adds a fourth, `baseline`: what "off" is compared
// with to show that tracing off costs nothing.
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { freePort } from '../worker/temporal/ports.js';
import {
  spawnCairn,
  standaloneCairnEnv,
  waitForOk,
  type CairnProcess,
} from '../test/support/cairn-process.js';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';
import { seedVolume, type Volume } from './fixtures/seed-volume.js';
import { answerOneMessage, median, printFigures, round } from './support.js';

const VOLUME: Volume = {
  conversations: Number(process.env.BENCH_CONVERSATIONS ?? 2_000),
  runs: Number(process.env.BENCH_RUNS ?? 20_000),
  events: Number(process.env.BENCH_EVENTS ?? 200_000),
};
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** An OTLP/HTTP endpoint that reads and drops every export, counting them. */
async function startSink() {
  let exports = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    figures: () => ({ exports, kilobytes: round(bytes / 1024) }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** CPU seconds (user + system) used so far by Cairn's own Node process: the requests' real cost. */
function cpuSeconds(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Requests/s, and CPU microseconds per request in Cairn's process. On a machine shared with other
 * work the first moves with what else runs; the second much less, so it carries the comparison.
 */
async function measure(url: string, pid: number): Promise<{ requestsPerSecond: number; cpuMicros: number }> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  const cpu = cpuSeconds(pid) - cpuBefore;
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${url}: ${failed} failed requests during the load`);
  return { requestsPerSecond: result.requests.average, cpuMicros: (cpu / result.requests.total) * 1e6 };
}

const home = makeTempHome();
const fakes = fakeAssistants();
const seedFile = join(home.home, 'seed.db');
const db = openDatabase({ sqliteFile: seedFile });
await migrateToLatest(db.knex);
const seeded = await seedVolume(db.knex, VOLUME);
await db.close();
const sink = await startSink();

const BASELINE_BIN = process.env.BENCH_BASELINE_BIN;
const configurations: Record<string, Record<string, string>> = {
  ...(BASELINE_BIN ? { baseline: {} } : {}),
  off: {},
  sampled: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint },
  everything: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_SAMPLER: 'always_on' },
};
const reads = {
  noop: '/health',
  conversation: `/api/conversations/${seeded.conversationIds[0]}`,
  conversationsPage: '/api/conversations',
  runDetail: `/api/workflows/runs/${seeded.runIds[seeded.runIds.length - 1]}`,
};

const started: Array<{ name: string; base: string; cairn: CairnProcess; cleanup: () => void }> = [];
try {
  for (const [name, extra] of Object.entries(configurations)) {
    const own = makeTempHome();
    const cwd = makeTempDir();
    copyFileSync(seedFile, join(own.home, 'cairn.db'));
    const port = await freePort();
    const cairn = spawnCairn(['start'], {
      env: standaloneCairnEnv(own.home, port, { ...fakes.env, ...extra }),
      cwd: cwd.path,
      ...(name === 'baseline' ? { bin: BASELINE_BIN } : {}),
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`, cairn, 15 * 60_000);
    started.push({ name, base, cairn, cleanup: () => (own.cleanup(), cwd.cleanup()) });
  }
  // Each answers a message first, as any Cairn in use has: its worker's activities then run in
  // AsyncLocalStorage (Temporal's activity context), in every configuration alike.
  for (const { base } of started) await answerOneMessage(base);
  // Warm-up: the first seconds of a fresh process are slower.
  for (const { base, cairn } of started) await measure(`${base}/health`, cairn.child.pid!);

  const samples: Record<string, Record<string, { rps: number[]; cpu: number[] }>> = {};
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
    for (const [read, path] of Object.entries(reads)) {
      for (const { name, base, cairn } of started) {
        const sample = ((samples[name] ??= {})[read] ??= { rps: [], cpu: [] });
        const figures = await measure(`${base}${path}`, cairn.child.pid!);
        sample.rps.push(figures.requestsPerSecond);
        sample.cpu.push(figures.cpuMicros);
      }
    }
  }
  const medianOf = (name: string, read: string) => {
    const sample = samples[name]![read]!;
    return { rps: median(sample.rps), cpu: median(sample.cpu) };
  };
  const ratio = (value: number) => Math.round(value * 1000) / 1000;
  const results = Object.fromEntries(
    Object.keys(samples).map((name) => [
      name,
      Object.fromEntries(
        Object.keys(reads).map((read) => {
          const mine = medianOf(name, read);
          const off = medianOf('off', read);
          return [
            read,
            {
              requestsPerSecond: round(mine.rps),
              cpuMicrosPerRequest: round(mine.cpu),
              // The throughput a CPU-bound server keeps, relative to tracing off (off's CPU / this CPU).
              ratioToOffByCpu: ratio(off.cpu / mine.cpu),
              ratioToOffByRequests: ratio(mine.rps / off.rps),
            },
          ];
        }),
      ),
    ]),
  );
  const worstSampledRatio = Math.min(
    ...Object.keys(reads).map((read) => medianOf('off', read).cpu / medianOf('sampled', read).cpu),
  );
  printFigures('telemetry', {
    command: `node bin/run-ts.mjs bench/telemetry.ts (${CONNECTIONS} connections, ${SECONDS} s per endpoint, ${ROUNDS} rounds, medians${BASELINE_BIN ? `, baseline ${BASELINE_BIN}` : ''})`,
    volume: VOLUME,
    results,
    sink: sink.figures(),
    target:
      'tracing at the default sampling costs under 5% of read throughput (CPU per request: ratio >= 0.95)',
    worstSampledRatio: Math.round(worstSampledRatio * 1000) / 1000,
    met: worstSampledRatio >= 0.95,
  });
} finally {
  for (const { cairn, cleanup } of started) {
    await cairn.stop('SIGTERM');
    cleanup();
  }
  await sink.close();
  fakes.cleanup();
  home.cleanup();
}
