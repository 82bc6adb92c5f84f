// Conversation latency and SSE fan-out against a real `cairn start` (embedded Temporal, SQLite)
// whose assistant is the fake claude executable, so the figures are Cairn's own overhead.
// Targets (issue 4): message accepted (202) -> first SSE event of its turn under 150 ms median;
// 100 SSE clients on one conversation each receive every event, in order. Prints JSON.
import { performance } from 'node:perf_hooks';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { openSse, type SseConnection } from '../test/support/sse-client.js';
import { callJson, median, percentile, printFigures, round, withStandaloneCairn } from './support.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100);

const post = <T>(base: string, path: string, body: unknown) => callJson<T>(base, 'POST', path, body);

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

const fakes = fakeAssistants();
try {
  const figures = await withStandaloneCairn(fakes.env, async (base) => ({
    latency: await measureLatency(base),
    fanOut: await measureFanOut(base),
  }));
  printFigures('conversation', { database: 'sqlite', ...figures });
} finally {
  fakes.cleanup();
}
