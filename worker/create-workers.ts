import { Worker, type NativeConnection } from '@temporalio/worker';
import { assistantQueueFor } from '../domain/task-queues.js';
import {
  createAssistantActivities,
  createCoreActivities,
  type ActivityDependencies,
} from '../activities/index.js';

export interface WorkerSetOptions {
  connection: NativeConnection;
  namespace: string;
  /** The core queue; the assistant queue is derived from it. */
  taskQueue: string;
  workflowBundle: { code: string };
  /** Assistant sessions that may run at once (MAX_CONCURRENT_CONVERSATIONS). */
  maxConcurrentAssistantSessions: number;
  /** How long activities get to finish after shutdown is requested. */
  shutdownGraceTime?: string;
  dependencies: ActivityDependencies;
}

export interface WorkerSet {
  workers: Worker[];
  /** Runs until shutdown() is called or a worker fails. */
  run(): Promise<void>;
  shutdown(): void;
}

/** Core activities (bash nodes, worktree preparation, clones, cleanup) running at once in one worker process. */
const MAX_CORE_ACTIVITIES = 40;

/** The core worker (workflows and their activities) and the assistant worker (sessions). */
export async function createWorkers(options: WorkerSetOptions): Promise<WorkerSet> {
  const grace = options.shutdownGraceTime ?? '30 seconds';
  const core = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.workflowBundle,
    activities: createCoreActivities(options.dependencies),
    maxConcurrentActivityTaskExecutions: MAX_CORE_ACTIVITIES,
    shutdownGraceTime: grace,
  });
  const assistant = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: assistantQueueFor(options.taskQueue),
    activities: createAssistantActivities(options.dependencies),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentAssistantSessions,
    shutdownGraceTime: grace,
  });
  const workers = [core, assistant];
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
