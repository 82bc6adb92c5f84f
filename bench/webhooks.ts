// Code-host webhooks under load: a real `cairn start` (embedded Temporal, SQLite) receiving GitHub
// webhooks signed as GitHub signs them, answering through a fake GitHub API on loopback.
// Targets (issue 15, AMENDMENTS B "15"): webhook received -> 2xx p99 under 50 ms with 50 concurrent
// deliveries (the outbox: record, 202, start after); 1,000 deliveries of which 500 are duplicates
// start exactly 500 pieces of work. The comments are `/status` commands, so the work (a check of
// who asked, a 👀, one answer comment) needs no assistant. Not part of the test suite. Prints JSON.
import { performance } from 'node:perf_hooks';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempRepo } from '../test/support/git-repos.js';
import { issueCommentPayload } from '../test/support/code-host-payloads.js';
import {
  GITHUB_TOKEN,
  signGitHub,
  startFakeGitHub,
  type FakeGitHub,
} from '../test/support/fakes/github-api.js';
import { withBareServer } from './bare-server.js';
import { DeliveryClient, type TimedRequest } from './delivery-client.js';
import { printFigures, round, stats, percentile, withSplitCairn, withStandaloneCairn } from './support.js';

const SECRET = 'bench-webhook-secret';
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const QUIET_ROUNDS = Number(process.env.BENCH_QUIET_ROUNDS ?? 4);
const UNIQUE = Number(process.env.BENCH_UNIQUE ?? 500);
let nextId = 1;
/** The fake GitHub's git over HTTP: the first request clones acme/shop from it. */
let gitBase = 'https://github.com';

function statusComment(issue: number, commentId = nextId++) {
  return issueCommentPayload(gitBase, 'acme/shop', issue, '/status', { commentId });
}

/** One delivery's body and headers, signed as GitHub signs them. */
function delivery(payload: unknown, deliveryId: string): TimedRequest {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': signGitHub(SECRET, body),
    },
  };
}

const p99 = (times: number[]) => round(percentile(times, 0.99));
const withP99 = (times: number[]) => ({ ...stats(times), p99: p99(times) });

/** Deliveries sent at once (from the client's own thread); each one's time to its 2xx and receipt status. */
async function deliverAll(base: string, requests: TimedRequest[]) {
  const answers = await client.postAll(`${base}/webhooks/github`, requests);
  return answers.map((answer) => {
    if (answer.status !== 202) throw new Error(`webhook answered ${answer.status}: ${answer.text}`);
    return { ms: answer.ms, status: (JSON.parse(answer.text) as { status: string }).status };
  });
}

async function waitUntil(probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The server's figures from /metrics: its event-loop delay since the last read (prom-client's
 * histogram is reset on each read, so reads before and after a round give the round's own) and
 * the CPU time it has used, which the load of other work on the machine does not inflate.
 */
async function serverFigures(base: string) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) =>
    Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${name} `))
        ?.split(' ')[1] ?? NaN,
    );
  return {
    loopDelay: {
      p99: round(value('nodejs_eventloop_lag_p99_seconds') * 1000),
      max: round(value('nodejs_eventloop_lag_max_seconds') * 1000),
    },
    cpuMs: value('process_cpu_seconds_total') * 1000,
  };
}

/**
 * Comments that mention nobody, which the server checks, parses and answers `ignored` without
 * recording or starting anything: what the request path costs by itself, one at a time and
 * CONCURRENT at once, with the server's CPU per delivery.
 */
async function ignoredDeliveries(base: string, issue: number) {
  const ignored = (i: number) =>
    delivery(issueCommentPayload(gitBase, 'acme/shop', issue, 'thanks', { commentId: nextId++ }), `ign-${i}`);
  const before = await serverFigures(base);
  const oneAtATime: number[] = [];
  for (let i = 0; i < CONCURRENT; i++) oneAtATime.push((await deliverAll(base, [ignored(i)]))[0]!.ms);
  const middle = await serverFigures(base);
  const together = await deliverAll(
    base,
    Array.from({ length: CONCURRENT }, (_, i) => ignored(CONCURRENT + i)),
  );
  const after = await serverFigures(base);
  if (together.some((answer) => answer.status !== 'ignored'))
    throw new Error('an ignored comment was acted on');
  return {
    oneAtATimeMs: withP99(oneAtATime),
    serverCpuMsPerDeliveryOneAtATime: round((middle.cpuMs - before.cpuMs) / CONCURRENT),
    atOnceMs: withP99(together.map((answer) => answer.ms)),
    serverCpuMsPerDeliveryAtOnce: round((after.cpuMs - middle.cpuMs) / CONCURRENT),
  };
}

/**
 * `rounds` rounds of CONCURRENT distinct /status deliveries at once, each round waiting for the one
 * before to be answered (and then for `settle`, when given); the time each took to its 2xx.
 */
async function timedRounds(
  base: string,
  rounds: number,
  label: string,
  nextIssue: () => number,
  settle?: () => Promise<void>,
) {
  const times: number[] = [];
  const roundP99: number[] = [];
  for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
    const answers = await deliverAll(
      base,
      Array.from({ length: CONCURRENT }, (_, i) =>
        delivery(statusComment(nextIssue()), `${label}-${roundIndex}-${i}`),
      ),
    );
    const roundTimes = answers.map((answer) => answer.ms);
    times.push(...roundTimes);
    roundP99.push(p99(roundTimes));
    await settle?.();
  }
  return { deliveries: rounds * CONCURRENT, webhookTo2xxMs: withP99(times), p99ByRoundMs: roundP99 };
}

/**
 * The same rounds of CONCURRENT deliveries at once, sent to a bare node:http server (bare-server.ts)
 * while Cairn runs idle beside it: what the client, the machine and Node's HTTP cost by themselves.
 */
function floorRounds(nextIssue: () => number) {
  return withBareServer((base) => timedRounds(base, ROUNDS, 'floor', nextIssue));
}

/** Rounds of CONCURRENT distinct deliveries sent at once; the time each took to its 2xx. */
async function latency(base: string, github: FakeGitHub) {
  const times: number[] = [];
  const roundP99: number[] = [];
  const loopDelay: Array<{ p99: number; max: number }> = [];
  const cpuMsPerDelivery: number[] = [];
  let issue = 100_000;
  // A warm-up round, not counted: the first requests compile the route's validators, and the first
  // one clones the repository. Waiting for its answers keeps the clone out of the timed rounds (and
  // out of the queue behind 100 requests waiting for it: the core worker's activity slots).
  await deliverAll(
    base,
    Array.from({ length: 5 }, (_, i) => delivery(statusComment(issue++), `warm-${i}`)),
  );
  await waitUntil(() => github.comments.length >= 5, 5 * 60_000);
  const requestPath = await ignoredDeliveries(base, issue);
  // A second warm-up, not counted either: one round at once, waited for. A server that has run for
  // a while has its request path compiled by the JIT; five requests leave most of it interpreted.
  const warmed = github.comments.length + CONCURRENT;
  await deliverAll(
    base,
    Array.from({ length: CONCURRENT }, (_, i) => delivery(statusComment(issue++), `warm-round-${i}`)),
  );
  await waitUntil(() => github.comments.length >= warmed, 5 * 60_000);
  const floor = await floorRounds(() => issue++);
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
    const before = await serverFigures(base);
    const answers = await deliverAll(
      base,
      Array.from({ length: CONCURRENT }, (_, i) =>
        delivery(statusComment(issue++), `lat-${roundIndex}-${i}`),
      ),
    );
    const roundTimes = answers.map((answer) => answer.ms);
    times.push(...roundTimes);
    roundP99.push(p99(roundTimes));
    const after = await serverFigures(base);
    loopDelay.push(after.loopDelay);
    cpuMsPerDelivery.push(round((after.cpuMs - before.cpuMs) / CONCURRENT));
  }
  const sent = 5 + CONCURRENT + ROUNDS * CONCURRENT;
  const answeredAt = performance.now();
  await waitUntil(() => github.comments.length >= sent, 10 * 60_000);
  const allAnsweredAfterMs = Math.round(performance.now() - answeredAt);
  const quiet = await quietRounds(base, github, () => issue++);
  return {
    // The request path alone (signature, parse, the answer; nothing recorded, no work after).
    requestPathOnly: requestPath,
    // The same bursts answered by a bare node:http server in another process: the method's floor.
    bareServerFloor: floor,
    deliveries: ROUNDS * CONCURRENT,
    concurrent: CONCURRENT,
    webhookTo2xxMs: withP99(times),
    // The first round meets idle workers; later ones compete with the work of the rounds before.
    p99ByRoundMs: roundP99,
    // The server's event-loop delay during each round (until its last 2xx), p99 and max.
    eventLoopDelayByRoundMs: loopDelay,
    // The server process's CPU time during each round (/metrics read to /metrics read) per delivery:
    // with `cairn start` it includes the workers' work on the rounds before.
    serverCpuMsPerDeliveryByRound: cpuMsPerDelivery,
    allAnsweredAfterMs,
    // The same bursts on a server whose earlier work is done: each round waits for the answers of
    // the one before, so no workflow competes with the request path.
    quietRounds: quiet,
  };
}

/**
 * QUIET_ROUNDS rounds of CONCURRENT deliveries at once, each sent once the work of the round
 * before has answered: the latency of a burst alone, beside the back-to-back rounds above, whose
 * bursts arrive while the earlier rounds' workflows still run on the same two cores.
 */
function quietRounds(base: string, github: FakeGitHub, nextIssue: () => number) {
  // Each round adds CONCURRENT answer comments; the next is sent once they are all there.
  const before = github.comments.length;
  let answeredRounds = 0;
  return timedRounds(base, QUIET_ROUNDS, 'quiet', nextIssue, () => {
    const expected = before + ++answeredRounds * CONCURRENT;
    return waitUntil(() => github.comments.length >= expected, 5 * 60_000);
  });
}

/** UNIQUE requests, each delivered twice (once under another delivery id), shuffled: how many answers. */
async function duplicates(base: string, github: FakeGitHub) {
  const before = github.comments.length;
  const reactionsBefore = github.reactions.length;
  const deliveries = Array.from({ length: UNIQUE }, (_, i) => {
    const payload = statusComment(200_000 + i);
    return [
      { payload, id: `dup-${i}` },
      { payload, id: i % 2 === 0 ? `dup-${i}` : `dup-other-hook-${i}` },
    ];
  }).flat();
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  const receipts: string[] = [];
  for (let i = 0; i < deliveries.length; i += CONCURRENT) {
    const batch = deliveries.slice(i, i + CONCURRENT);
    receipts.push(
      ...(
        await deliverAll(
          base,
          batch.map((d) => delivery(d.payload, d.id)),
        )
      ).map((a) => a.status),
    );
  }
  await waitUntil(() => github.comments.length - before >= UNIQUE, 10 * 60_000);
  // Anything started twice would answer within a few seconds of the rest.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  return {
    deliveries: deliveries.length,
    distinctRequests: UNIQUE,
    receipts: {
      accepted: receipts.filter((s) => s === 'accepted').length,
      duplicate: receipts.filter((s) => s === 'duplicate').length,
    },
    answerComments: github.comments.length - before,
    eyesReactions: github.reactions.length - reactionsBefore,
  };
}

const client = new DeliveryClient();
const github = await startFakeGitHub();
const fakes = fakeAssistants();
const repository = makeTempRepo();
github.git.host('acme/shop', repository.path);
gitBase = github.url;
try {
  // BENCH_SPLIT=1: `cairn api` and `cairn worker` as two processes instead of one `cairn start`.
  const withCairn = process.env.BENCH_SPLIT === '1' ? withSplitCairn : withStandaloneCairn;
  const figures = await withCairn(
    {
      ...fakes.env,
      WEBHOOK_SECRET: SECRET,
      GITHUB_TOKEN,
      GITHUB_API_URL: github.url,
      GITHUB_ALLOWED_USERS: 'alice',
      GITHUB_BOT_MENTION: 'cairn-bot',
    },
    async (base) => ({ latency: await latency(base, github), duplicates: await duplicates(base, github) }),
  );
  printFigures('webhooks', {
    command: 'node bin/run-ts.mjs bench/webhooks.ts',
    setup: process.env.BENCH_SPLIT === '1' ? 'cairn api + cairn worker' : 'cairn start',
    data:
      `GitHub issue_comment webhooks (/status commands, allow-listed user): ${ROUNDS} rounds of ${CONCURRENT} ` +
      `at once to a bare node:http server (the floor); ${ROUNDS} rounds of ${CONCURRENT} at once, back to back; ${QUIET_ROUNDS} rounds of ${CONCURRENT} at once, each after the work of the one before; then ${UNIQUE} requests each delivered twice, shuffled, ${CONCURRENT} at a time`,
    ...figures,
  });
} finally {
  await github.close();
  await client.close();
  fakes.cleanup();
  repository.cleanup();
}
