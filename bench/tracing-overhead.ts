// What tracing adds to one read, measured inside one process: the core API and its workers run
// here (SQLite, the test Temporal server), and tracing is started and stopped between rounds,
// so both sides share the process, its JIT and its memory, which telemetry.ts's three processes
// do not. Each round loads GET /api/conversations/{id} for BENCH_SECONDS (5) s with autocannon
// in a process of its own (BENCH_CONNECTIONS 10), tracing off, then on at the default sampling
// (10%) exporting OTLP/protobuf to a sink on loopback, BENCH_ROUNDS (6) times; it prints the
// median CPU microseconds per request of this process for each, and their ratio.
// BENCH_SAMPLERS (`sampler[:ratio]`, comma-separated) measures other samplers too, in each round,
// e.g. `always_off,always_on` to part the cost every request pays from a sampled request's; a
// `+context` after one enters a trace context once before its load, as any write or traced
// activity does, to show what that alone costs every later request.
// BENCH_PAIRS=N measures differently, for a machine whose CPU per request moves by more than the
// 5% to resolve from one 5-s round to the next: one autocannon load runs throughout, and tracing
// is switched on and off in slices of BENCH_SLICE_SECONDS (2) s, N pairs of neighbouring slices
// (off then on, on then off, in turn), so that each pair shares the machine's state of the moment,
// after BENCH_WARM_PAIRS (3) untimed pairs.
// It prints the median and mean of the pairs' ratios, with a bootstrap 90% interval of the mean,
// and the main thread's garbage-collection pauses per request on each side.
// With BENCH_SAMPLERS the slices compare off with its last sampler instead of the default one;
// BENCH_CONTROL=1 leaves tracing off in both slices of each pair, to show the method's own spread.
// BENCH_PROFILE=1 also profiles every side (node:inspector, which adds its own cost to each) and
// prints the functions whose self time per request differs most from tracing off.
import * as api from '@opentelemetry/api';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { register } from 'prom-client';
import { createLogger } from '../config/logger.js';
import { startTracing } from '../infra/telemetry/start-tracing.js';
import { DEFAULT_RATIO, DEFAULT_SAMPLER, type SamplerName } from '../infra/telemetry/tracing-settings.js';
import { databaseKinds } from '../test/support/databases.js';
import { startLiveCore } from '../test/support/live-core.js';
import { stopTestTemporal } from '../test/support/temporal.js';
import { PhaseProfiler } from './phase-profile.js';
import { answerOneMessage, median, percentile, printFigures, round } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const PROFILE = process.env.BENCH_PROFILE === '1';
const PAIRS = Number(process.env.BENCH_PAIRS ?? 0);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const WARM_PAIRS = Number(process.env.BENCH_WARM_PAIRS ?? 3);
const CONTROL = process.env.BENCH_CONTROL === '1';
const FRESH = process.env.BENCH_FRESH === '1';
/** The traced sides: `sampled` (the default sampler, the one the target is about), then any others. */
const SIDES = [
  { name: 'sampled', sampler: DEFAULT_SAMPLER, ratio: DEFAULT_RATIO, enterContext: false },
  ...(process.env.BENCH_SAMPLERS ?? '')
    .split(',')
    .filter(Boolean)
    .map((spec) => {
      const [sampler, ratio] = spec.replace('+context', '').split(':');
      return {
        name: spec,
        sampler: sampler as SamplerName,
        ratio: ratio ? Number(ratio) : DEFAULT_RATIO,
        enterContext: spec.endsWith('+context'),
      };
    }),
];
/** What the slices compare with tracing off: the last side named, the default sampler when none is. */
const SLICE_SIDE = SIDES[SIDES.length - 1]!;
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
// As a `cairn start` in use: its worker has run activities, in Temporal's AsyncLocalStorage, so
// the async hooks that tracing's context also needs are on with tracing off too. BENCH_FRESH=1
// skips it: a process that never ran one (`cairn api` apart from its workers) pays for them.
if (!FRESH) await answerOneMessage(core.app.url);

const profiler = PROFILE ? new PhaseProfiler() : undefined;
await profiler?.start();
const requestsByPhase = new Map<string, number>();

/** CPU µs of this process per request, while autocannon (another process) loads `url`. */
async function cpuPerRequest(phase?: string): Promise<{ cpuMicros: number; requestsPerSecond: number }> {
  const before = process.cpuUsage();
  const load = () =>
    promisify(execFile)(process.execPath, [
      AUTOCANNON,
      '--json',
      '-c',
      String(CONNECTIONS),
      '-d',
      String(SECONDS),
      url,
    ]);
  const { stdout } = profiler && phase ? await profiler.profile(phase, load) : await load();
  const used = process.cpuUsage(before);
  const result = JSON.parse(stdout) as { requests: { total: number; average: number }; non2xx: number };
  if (result.non2xx > 0) throw new Error(`${result.non2xx} failed requests`);
  if (phase) requestsByPhase.set(phase, (requestsByPhase.get(phase) ?? 0) + result.requests.total);
  return {
    cpuMicros: (used.user + used.system) / result.requests.total,
    requestsPerSecond: result.requests.average,
  };
}

type Side = (typeof SIDES)[number];

function startBenchTracing({ sampler, ratio, enterContext }: Side) {
  const tracing = startTracing(
    {
      url: sinkUrl,
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'cairn',
      serviceVersion: 'bench',
      sampler,
      ratio,
    },
    createLogger({ level: 'warn' }),
  );
  if (enterContext) api.context.with(api.ROOT_CONTEXT, () => undefined);
  return tracing;
}

/** Requests the core has answered so far, from its own request histogram, and how many failed. */
async function answered(): Promise<{ total: number; failed: number }> {
  const histogram = register.getSingleMetric('cairn_http_request_duration_seconds');
  const counts = (await histogram!.get()).values.filter((value) =>
    (value as { metricName?: string }).metricName?.endsWith('_count'),
  );
  const sum = (values: typeof counts) => values.reduce((total, value) => total + value.value, 0);
  return { total: sum(counts), failed: sum(counts.filter((value) => Number(value.labels.status) >= 400)) };
}

// Garbage collection's pauses, summed as they are reported: a slice's share of its CPU.
let gcMicros = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMicros += entry.duration * 1000;
});

/** CPU µs of this process per request answered during one slice, and the GC pauses' share of it. */
async function slice(traced: boolean): Promise<{ cpu: number; gc: number }> {
  const tracing = traced ? startBenchTracing(SLICE_SIDE) : undefined;
  const cpuBefore = process.cpuUsage();
  const gcBefore = gcMicros;
  const before = await answered();
  await sleep(SLICE_SECONDS * 1000);
  // What the slice's spans cost to export is part of its cost, not of the next slice's.
  await tracing?.spanProcessor.forceFlush();
  const used = process.cpuUsage(cpuBefore);
  const after = await answered();
  const gc = gcMicros - gcBefore;
  await tracing?.shutdown();
  if (after.failed > before.failed) throw new Error(`${after.failed - before.failed} failed requests`);
  const requests = after.total - before.total;
  return { cpu: (used.user + used.system) / requests, gc: gc / requests };
}

/** The mean of `values` resampled 2,000 times: the 5th and 95th percentiles of those means. */
function bootstrapInterval(values: number[]): [number, number] {
  const means: number[] = [];
  for (let draw = 0; draw < 2000; draw++) {
    let total = 0;
    for (let index = 0; index < values.length; index++) {
      total += values[Math.floor(Math.random() * values.length)]!;
    }
    means.push(total / values.length);
  }
  return [percentile(means, 0.05), percentile(means, 0.95)];
}

/** Met or missed only when the whole interval lies on one side of the target. */
function verdict([low, high]: [number, number], target: number): boolean | 'not resolved' {
  if (low >= target) return true;
  return high < target ? false : 'not resolved';
}

async function measureInSlices(): Promise<void> {
  const seconds = Math.ceil((PAIRS + WARM_PAIRS) * 2 * (SLICE_SECONDS + 1) + 15);
  const load = spawn(process.execPath, [AUTOCANNON, '-c', String(CONNECTIONS), '-d', String(seconds), url], {
    stdio: 'ignore',
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  try {
    await sleep(3000); // warm-up, under the same load
    // Untimed pairs first, so the traced path has run as long as the untraced one in the warm-up
    // before any pair is timed.
    for (let pair = 0; pair < WARM_PAIRS; pair++) {
      await slice(!CONTROL);
      await slice(false);
    }
    const pairs: Array<{ off: number; traced: number; ratio: number; gcOff: number; gcTraced: number }> = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const tracedFirst = pair % 2 === 1;
      const first = await slice(tracedFirst && !CONTROL);
      const second = await slice(!tracedFirst && !CONTROL);
      const [off, traced] = tracedFirst ? [second, first] : [first, second];
      pairs.push({
        off: round(off.cpu),
        traced: round(traced.cpu),
        ratio: Math.round((off.cpu / traced.cpu) * 1000) / 1000,
        gcOff: round(off.gc),
        gcTraced: round(traced.gc),
      });
    }
    if (load.exitCode !== null) throw new Error('the load ended before the last slice: raise its duration');
    const ratios = pairs.map((pair) => pair.ratio);
    const mean = ratios.reduce((total, value) => total + value, 0) / ratios.length;
    const [low, high] = bootstrapInterval(ratios);
    const three = (value: number) => Math.round(value * 1000) / 1000;
    printFigures('tracing-overhead', {
      command: `BENCH_PAIRS=${PAIRS} BENCH_WARM_PAIRS=${WARM_PAIRS} BENCH_SLICE_SECONDS=${SLICE_SECONDS}${CONTROL ? ' BENCH_CONTROL=1' : ''}${SLICE_SIDE.name === 'sampled' ? '' : ` BENCH_SAMPLERS=${SLICE_SIDE.name}`}${FRESH ? ' BENCH_FRESH=1' : ''} node bin/run-ts.mjs bench/tracing-overhead.ts (${CONNECTIONS} connections throughout)`,
      read: 'GET /api/conversations/{id}, SQLite',
      compared: CONTROL ? 'off against off (control)' : `off against ${SLICE_SIDE.name}`,
      cpuMicrosPerRequest: {
        off: round(median(pairs.map((pair) => pair.off))),
        traced: round(median(pairs.map((pair) => pair.traced))),
      },
      gcPauseMicrosPerRequest: {
        off: round(median(pairs.map((pair) => pair.gcOff))),
        traced: round(median(pairs.map((pair) => pair.gcTraced))),
      },
      ratioByCpu: { median: three(median(ratios)), mean: three(mean), interval90: [three(low), three(high)] },
      pairs,
      target: 'under 5% (ratio >= 0.95)',
      met: CONTROL || SLICE_SIDE.name !== 'sampled' ? undefined : verdict([low, high], 0.95),
    });
  } finally {
    gcObserver.disconnect();
    load.kill();
  }
}

/** Off, then each side, BENCH_ROUNDS times, each a load of its own: medians and their ratios. */
async function measureInRounds(): Promise<void> {
  const samples: Record<string, number[]> = { off: [] };
  const throughput: Record<string, number[]> = { off: [] };
  await cpuPerRequest(); // warm-up
  for (let index = 0; index < ROUNDS; index++) {
    const off = await cpuPerRequest('off');
    samples.off!.push(off.cpuMicros);
    throughput.off!.push(off.requestsPerSecond);
    for (const side of SIDES) {
      const tracing = startBenchTracing(side);
      try {
        const on = await cpuPerRequest(side.name);
        (samples[side.name] ??= []).push(on.cpuMicros);
        (throughput[side.name] ??= []).push(on.requestsPerSecond);
      } finally {
        await tracing.shutdown();
      }
    }
  }
  const off = median(samples.off!);
  const medians = (values: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(values).map(([name, list]) => [name, round(median(list))]));
  const ratios = Object.fromEntries(
    SIDES.map(({ name }) => [name, Math.round((off / median(samples[name]!)) * 1000) / 1000]),
  );
  const ratio = ratios.sampled!;
  printFigures('tracing-overhead', {
    command: `node bin/run-ts.mjs bench/tracing-overhead.ts (${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} rounds, medians)`,
    read: 'GET /api/conversations/{id}, SQLite',
    cpuMicrosPerRequest: medians(samples),
    requestsPerSecond: medians(throughput),
    ratioByCpu: SIDES.length === 1 ? ratio : ratios,
    samples,
    target: 'under 5% (ratio >= 0.95)',
    met: ratio >= 0.95,
  });
  if (profiler) {
    for (const { name } of SIDES) {
      console.log(`self µs per request (profiled), off against ${name}, the largest differences:`);
      console.table(
        profiler.differences('off', requestsByPhase.get('off')!, name, requestsByPhase.get(name)!),
      );
      console.log(`inclusive µs per request (profiled) by package or file, off against ${name}:`);
      console.table(
        profiler.differences('off', requestsByPhase.get('off')!, name, requestsByPhase.get(name)!, {
          by: 'place',
        }),
      );
    }
  }
}

try {
  await (PAIRS > 0 ? measureInSlices() : measureInRounds());
} finally {
  profiler?.close();
  await core.close();
  // The shared dev server would keep the process (and itself) running after the figures.
  await stopTestTemporal();
  sink.close();
}
