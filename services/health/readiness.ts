// A CommonJS package: its namespace comes through the default export under ESM.
import proto from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { assistantQueueFor, deliveryQueueFor, runQueueFor } from '../../domain/task-queues.js';
import type { ServiceContext } from '../context.js';
import { databaseReachable } from './health.js';

/** One dependency of readiness: whether it answers, and why not. */
export interface ReadinessCheck {
  ok: boolean;
  detail?: string;
}

export interface QueuePollers {
  name: string;
  kind: 'workflow' | 'activity';
  /** Workers that polled the queue recently. */
  pollers: number;
}

export interface Readiness {
  ready: boolean;
  database: ReadinessCheck;
  temporal: ReadinessCheck;
  workers: ReadinessCheck & { queues: QueuePollers[] };
}

export interface ReadinessDependencies {
  client: Client;
  namespace: string;
  /** The core task queue; the run and assistant queues follow from it. */
  taskQueue: string;
}

/** A poller that has not been seen for this long is gone (a live one polls again within a minute). */
export const POLLER_SEEN_WITHIN_MS = 2 * 60_000;
const CHECK_TIMEOUT_MS = 2_000;

const { TaskQueueType } = proto.temporal.api.enums.v1;

/**
 * Readiness, for a load balancer or an orchestrator (liveness is /health): the database answers,
 * Temporal answers, and each of Cairn's task queues has a worker polling it, so work sent now
 * will be picked up. Workers may be other processes (`cairn worker`): Temporal's record of who
 * polled each queue says so for all of them.
 */
export async function checkReadiness(
  context: ServiceContext,
  deps: ReadinessDependencies,
): Promise<Readiness> {
  const [database, temporalCheck, workers] = await Promise.all([
    withTimeout(
      databaseReachable(context).then((ok) => (ok ? { ok } : { ok, detail: 'the database does not answer' })),
    ),
    withTimeout(temporalAnswers(deps)),
    withTimeout(queuePollers(deps)),
  ]);
  const queues = 'queues' in workers ? workers.queues : [];
  const idle = queues.filter((queue) => queue.pollers === 0).map((queue) => queue.name);
  const workerCheck: Readiness['workers'] =
    !workers.ok || !('queues' in workers)
      ? { ok: false, detail: workers.detail, queues }
      : idle.length > 0
        ? { ok: false, detail: `no worker polls ${idle.join(', ')}`, queues }
        : { ok: true, queues };
  return {
    ready: database.ok && temporalCheck.ok && workerCheck.ok,
    database,
    temporal: temporalCheck,
    workers: workerCheck,
  };
}

async function temporalAnswers(deps: ReadinessDependencies): Promise<ReadinessCheck> {
  await deps.client.workflowService.describeNamespace({ namespace: deps.namespace });
  return { ok: true };
}

async function queuePollers(
  deps: ReadinessDependencies,
): Promise<ReadinessCheck & { queues: QueuePollers[] }> {
  const wanted: Array<Omit<QueuePollers, 'pollers'>> = [
    { name: deps.taskQueue, kind: 'workflow' },
    { name: runQueueFor(deps.taskQueue), kind: 'workflow' },
    { name: assistantQueueFor(deps.taskQueue), kind: 'activity' },
    { name: deliveryQueueFor(deps.taskQueue), kind: 'activity' },
  ];
  const since = Date.now() - POLLER_SEEN_WITHIN_MS;
  const queues = await Promise.all(
    wanted.map(async (queue) => {
      const described = await deps.client.workflowService.describeTaskQueue({
        namespace: deps.namespace,
        taskQueue: { name: queue.name },
        taskQueueType:
          queue.kind === 'workflow'
            ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
            : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      const pollers = (described.pollers ?? []).filter(
        (poller) => secondsOf(poller.lastAccessTime) * 1000 >= since,
      );
      return { ...queue, pollers: pollers.length };
    }),
  );
  return { ok: true, queues };
}

function secondsOf(time: { seconds?: unknown } | null | undefined): number {
  const seconds = time?.seconds;
  return seconds === undefined || seconds === null ? 0 : Number(seconds);
}

/** A check that does not answer within 2 s fails: a probe must not hang on a stuck dependency. */
async function withTimeout<T extends ReadinessCheck>(check: Promise<T>): Promise<T | ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${CHECK_TIMEOUT_MS} ms` }),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      check.catch((error: Error) => ({ ok: false, detail: error.message }) as ReadinessCheck),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
