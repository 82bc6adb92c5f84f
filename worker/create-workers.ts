import type { Duration } from '@temporalio/common';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { assistantQueueFor, deliveryQueueFor, runQueueFor } from '../domain/task-queues.js';
import {
  createAssistantActivities,
  createCoreActivities,
  createDeliveryActivities,
  createRunQueueActivities,
} from '../activities/index.js';
import type { ServiceContext } from '../services/context.js';
import { processGroupInterceptors } from './activity-process-groups.js';
import { CANCELLABLE_HEARTBEAT_MS } from '../activities/heartbeats.js';
import type { WorkerTracing } from './tracing.js';

export interface WorkerSetOptions {
  connection: NativeConnection;
  namespace: string;
  /** The core queue; the assistant queue is derived from it. */
  taskQueue: string;
  workflowBundle: { code: string };
  /** Assistant sessions that may run at once (MAX_CONCURRENT_CONVERSATIONS). */
  maxConcurrentAssistantSessions: number;
  /** Activities of the core queue one process runs at once; the SDK's default (100) unless set. */
  coreActivitySlots?: number;
  /** How long activities get to finish after shutdown is requested. */
  shutdownGraceTime?: Duration;
  dependencies: ServiceContext;
  /** Activity spans and the workflow span sink, when tracing is on (worker/tracing.ts). */
  tracing?: WorkerTracing;
}

export interface WorkerSet {
  workers: Worker[];
  /** Runs until shutdown() is called or a worker fails. */
  run(): Promise<void>;
  shutdown(): void;
}

/** Bash nodes and run preparations running at once in one worker process. */
const MAX_RUN_ACTIVITIES = 20;

/**
 * Deliveries following a turn or a run at once in one worker process. Each mostly waits (for the
 * journal, or a run at its gate for days), so the bound is about memory, not the processor.
 */
const MAX_DELIVERIES = 500;

/**
 * The core worker, the run worker (workflow runs, their bash nodes), the assistant worker
 * (sessions) and the delivery worker (activities only: chat and thread deliveries).
 */
export async function createWorkers(options: WorkerSetOptions): Promise<WorkerSet> {
  const grace: Duration = options.shutdownGraceTime ?? '30 seconds';
  const { tracing } = options;
  // The tracing interceptor comes first, so the activity's span covers everything after it.
  const interceptors = {
    activity: [
      ...(tracing ? [tracing.activityInterceptors] : []),
      processGroupInterceptors(options.dependencies),
    ],
  };
  const sinks = tracing?.sinks;
  // Created side by side: each workflow worker loads the bundle into its own threads, so this
  // takes one load's time instead of two (start-up, and every test that starts workers).
  const [core, runs, assistant, deliveries] = await Promise.all([
    Worker.create({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue: options.taskQueue,
      workflowBundle: options.workflowBundle,
      activities: createCoreActivities(options.dependencies),
      interceptors,
      sinks,
      ...(options.coreActivitySlots
        ? { maxConcurrentActivityTaskExecutions: options.coreActivitySlots }
        : {}),
      shutdownGraceTime: grace,
    }),
    Worker.create({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue: runQueueFor(options.taskQueue),
      workflowBundle: options.workflowBundle,
      activities: createRunQueueActivities(options.dependencies),
      interceptors,
      sinks,
      maxConcurrentActivityTaskExecutions: MAX_RUN_ACTIVITIES,
      shutdownGraceTime: grace,
    }),
    Worker.create({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue: assistantQueueFor(options.taskQueue),
      activities: createAssistantActivities(options.dependencies),
      interceptors,
      maxConcurrentActivityTaskExecutions: options.maxConcurrentAssistantSessions,
      // Turns learn of a cancel from a heartbeat's answer: send theirs on, not every 24 s.
      maxHeartbeatThrottleInterval: CANCELLABLE_HEARTBEAT_MS,
      shutdownGraceTime: grace,
    }),
    Worker.create({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue: deliveryQueueFor(options.taskQueue),
      activities: createDeliveryActivities(options.dependencies),
      interceptors,
      maxConcurrentActivityTaskExecutions: MAX_DELIVERIES,
      shutdownGraceTime: grace,
    }),
  ]);
  const workers = [core, runs, assistant, deliveries];
  return {
    workers,
    async run() {
      // When one worker fails, the others still get their graceful shutdown before the error surfaces.
      const results = await Promise.allSettled(
        workers.map((worker) =>
          worker.run().catch((error: unknown) => {
            for (const other of workers)
              if (other !== worker && other.getState() === 'RUNNING') other.shutdown();
            throw error;
          }),
        ),
      );
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) throw (failure as PromiseRejectedResult).reason;
    },
    shutdown() {
      for (const worker of workers) {
        if (worker.getState() === 'RUNNING') worker.shutdown();
      }
    },
  };
}
