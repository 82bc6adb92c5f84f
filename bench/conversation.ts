// Conversation latency and SSE fan-out against a real `cairn start` (embedded Temporal, SQLite)
// whose assistant is the fake claude executable, so the figures are Cairn's own overhead.
// Targets (issue 4): message accepted (202) -> first SSE event of its turn under 150 ms median;
// 100 SSE clients on one conversation each receive every event, in order. Prints JSON.
import { performance } from 'node:perf_hooks';
import { cpus, hostname } from 'node:os';
import { freePort } from '../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk } from '../test/support/cairn-process.js';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { openSse, type SseConnection } from '../test/support/sse-client.js';
import { makeTempDir, makeTempHome } from '../test/support/temp-dirs.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function post<T>(base: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as T;
}

async function measureLatency(base: string) {
  const conversation = await post<{ platform_conversation_id: string }>(base, '/api/conversations', {
    title: 'bench',
  });
  const id = conversation.platform_conversation_id;
  const stream = await openSse(`${base}/api/stream/${id}`);
  await stream.waitForComment('connected');
  const toFirstEvent: number[] = [];
  const toFirstText: number[] = [];
  const toCompleted: number[] = [];
  for (let index = 0; index < MESSAGES; index += 1) {
    const sent = performance.now();
    const accepted = await post<{ message_id: number }>(base, `/api/conversations/${id}/message`, {
      message: `[fake:reply answer ${index}]`,
    });
    const acceptedAt = performance.now();
    const mine = (type: string) => (frame: { data: Record<string, unknown> }) =>
      frame.data.type === type && frame.data.messageId === accepted.message_id;
    await stream.waitFor(mine('turn_started'), 60_000);
    toFirstEvent.push(performance.now() - acceptedAt);
    await stream.waitFor(mine('text'), 60_000);
    toFirstText.push(performance.now() - acceptedAt);
    await stream.waitFor(mine('turn_completed'), 60_000);
    toCompleted.push(performance.now() - sent);
  }
  stream.close();
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    messages: MESSAGES,
    acceptedToTurnStartedMs: {
      median: round(median(toFirstEvent)),
      p95: round(percentile(toFirstEvent, 0.95)),
    },
    acceptedToFirstTextMs: { median: round(median(toFirstText)), p95: round(percentile(toFirstText, 0.95)) },
    sendToTurnCompletedMs: { median: round(median(toCompleted)), p95: round(percentile(toCompleted, 0.95)) },
    targetMedianMs: 150,
  };
}

async function measureFanOut(base: string) {
  const conversation = await post<{ platform_conversation_id: string }>(base, '/api/conversations', {
    title: 'fan-out',
  });
  const id = conversation.platform_conversation_id;
  const clients: SseConnection[] = [];
  for (let index = 0; index < CLIENTS; index += 1) clients.push(await openSse(`${base}/api/stream/${id}`));
  await Promise.all(clients.map((client) => client.waitForComment('connected')));
  const started = performance.now();
  const accepted = await post<{ message_id: number }>(base, `/api/conversations/${id}/message`, {
    message: '[fake:slow 5]\n[fake:reply ' + 'word '.repeat(60).trim() + ']',
  });
  const done = (frame: { data: Record<string, unknown> }) =>
    frame.data.type === 'turn_completed' && frame.data.messageId === accepted.message_id;
  await Promise.all(clients.map((client) => client.waitFor(done, 120_000)));
  const elapsed = performance.now() - started;
  const reference = clients[0]!.frames.map((frame) => frame.id);
  const inOrder = reference.every((value, index) => index === 0 || value! > reference[index - 1]!);
  const identical = clients.every(
    (client) => JSON.stringify(client.frames.map((f) => f.id)) === JSON.stringify(reference),
  );
  for (const client of clients) client.close();
  return {
    clients: CLIENTS,
    eventsPerClient: reference.length,
    everyClientGotEveryEventInOrder: inOrder && identical,
    elapsedMs: Math.round(elapsed),
  };
}

const home = makeTempHome();
const cwd = makeTempDir();
const fakes = fakeAssistants();
const port = await freePort();
const env = standaloneCairnEnv(home.home, port, fakes.env);
const cairn = spawnCairn(['start'], { env, cwd: cwd.path });
try {
  const base = `http://127.0.0.1:${port}`;
  await waitForOk(`${base}/health`, cairn, 15 * 60_000);
  const latency = await measureLatency(base);
  const fanOut = await measureFanOut(base);
  console.log(
    JSON.stringify(
      {
        benchmark: 'conversation',
        date: new Date().toISOString(),
        machine: { host: hostname(), cpus: cpus().length, cpu: cpus()[0]?.model },
        database: 'sqlite',
        latency,
        fanOut,
      },
      null,
      2,
    ),
  );
} finally {
  await cairn.stop('SIGTERM');
  fakes.cleanup();
  home.cleanup();
  cwd.cleanup();
}
