import { Worker, type NativeConnection } from '@temporalio/worker';
import { assistantQueueFor, nodeQueueFor } from '../domain/task-queues.js';
import {
  createAssistantActivities,
  createNodeQueueActivities,
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

/** Bash nodes running at once in one worker process. */
const MAX_PARALLEL_BASH_NODES = 20;

/** The core worker (workflows and short activities), the assistant worker (sessions) and the node worker (bash nodes). */
export async function createWorkers(options: WorkerSetOptions): Promise<WorkerSet> {
  const grace = options.shutdownGraceTime ?? '30 seconds';
  const core = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.workflowBundle,
    activities: createCoreActivities(options.dependencies),
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
  const nodes = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: nodeQueueFor(options.taskQueue),
    activities: createNodeQueueActivities(options.dependencies),
    maxConcurrentActivityTaskExecutions: MAX_PARALLEL_BASH_NODES,
    shutdownGraceTime: grace,
  });
  const workers = [core, assistant, nodes];
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
