// What tracing adds to one read, measured inside one process: the core API and its workers run
// here (SQLite, the test Temporal server), and tracing is started and stopped between rounds,
// so both sides share the process, its JIT and its memory, which telemetry.ts's three processes
// do not. Each round loads GET /api/conversations/{id} for BENCH_SECONDS (5) s with autocannon
// in a process of its own (BENCH_CONNECTIONS 10), tracing off, then on at the default sampling
// (10%) exporting OTLP/protobuf to a sink on loopback, BENCH_ROUNDS (6) times; it prints the
// median CPU microseconds per request of this process for each, and their ratio.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../config/logger.js';
import { startTracing } from '../infra/telemetry/start-tracing.js';
import { DEFAULT_RATIO, DEFAULT_SAMPLER } from '../infra/telemetry/tracing-settings.js';
import { databaseKinds } from '../test/support/databases.js';
import { startLiveCore } from '../test/support/live-core.js';
import { median, printFigures, round } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));

const sink = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;

const core = await startLiveCore(
  databaseKinds()[0]!,
  { 'README.md': '# bench\n' },
  {
    logger: createLogger({ level: 'warn' }),
  },
);
const created = await fetch(`${core.app.url}/api/conversations`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: '{}',
});
const { platform_conversation_id: id } = (await created.json()) as { platform_conversation_id: string };
const url = `${core.app.url}/api/conversations/${id}`;

/** CPU µs of this process per request, while autocannon (another process) loads `url`. */
async function cpuPerRequest(): Promise<{ cpuMicros: number; requestsPerSecond: number }> {
  const before = process.cpuUsage();
  const { stdout } = await promisify(execFile)(process.execPath, [
    AUTOCANNON,
    '--json',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(SECONDS),
    url,
  ]);
  const used = process.cpuUsage(before);
  const result = JSON.parse(stdout) as { requests: { total: number; average: number }; non2xx: number };
  if (result.non2xx > 0) throw new Error(`${result.non2xx} failed requests`);
  return {
    cpuMicros: (used.user + used.system) / result.requests.total,
    requestsPerSecond: result.requests.average,
  };
}

const samples = { off: [] as number[], sampled: [] as number[] };
const throughput = { off: [] as number[], sampled: [] as number[] };
try {
  await cpuPerRequest(); // warm-up
  for (let index = 0; index < ROUNDS; index++) {
    const off = await cpuPerRequest();
    samples.off.push(off.cpuMicros);
    throughput.off.push(off.requestsPerSecond);
    const tracing = startTracing(
      {
        url: sinkUrl,
        protocol: 'http/protobuf',
        headers: {},
        serviceName: 'cairn',
        serviceVersion: 'bench',
        sampler: DEFAULT_SAMPLER,
        ratio: DEFAULT_RATIO,
      },
      createLogger({ level: 'warn' }),
    );
    try {
      const on = await cpuPerRequest();
      samples.sampled.push(on.cpuMicros);
      throughput.sampled.push(on.requestsPerSecond);
    } finally {
      await tracing.shutdown();
    }
  }
  const off = median(samples.off);
  const sampled = median(samples.sampled);
  printFigures('tracing-overhead', {
    command: `node bin/run-ts.mjs bench/tracing-overhead.ts (${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} rounds, medians)`,
    read: 'GET /api/conversations/{id}, SQLite',
    cpuMicrosPerRequest: { off: round(off), sampled: round(sampled) },
    requestsPerSecond: { off: round(median(throughput.off)), sampled: round(median(throughput.sampled)) },
    ratioByCpu: Math.round((off / sampled) * 1000) / 1000,
    samples,
    target: 'under 5% (ratio >= 0.95)',
    met: off / sampled >= 0.95,
  });
} finally {
  await core.close();
  sink.close();
}
