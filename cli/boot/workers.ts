import { NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { installTemporalRuntime } from '../../worker/runtime.js';
export { temporalSdkMetricsUrl } from '../../worker/runtime.js';
import { freePort } from '../../worker/temporal/ports.js';
import { loadWorkflowBundle } from '../../worker/workflow-bundle.js';
import { createWorkers, type WorkerSet } from '../../worker/create-workers.js';
import type { StartedTracing } from '../../infra/telemetry/start-tracing.js';
import { startTurnSweeper } from '../../worker/turn-sweeper.js';
import { startRunReconciler } from '../../worker/run-reconciler.js';
import { ensureCleanupSchedule } from '../../services/cleanup/cleanup-schedule.js';
import { searchAttributesRegistered } from '../../infra/temporal/search-attributes.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import type { Database } from '../../db/connection.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';
import { activityDependencies } from './activity-dependencies.js';
import { startScheduleSyncer } from '../../worker/schedule-syncer.js';
import { sweepDeadWorkers } from '../../services/processes/attempt-process-groups.js';

/** Starts both workers; a worker that fails stops the whole process (via onFatal). */
export async function startWorkers(
  context: CairnContext,
  endpoint: { address: string; namespace: string },
  db: Database,
  lifecycle: Lifecycle,
  onFatal: (error: unknown) => void,
  tracing?: StartedTracing,
): Promise<WorkerSet> {
  installTemporalRuntime(context.logger, { metricsPort: await freePort() });
  // Before this worker takes any task: what dead workers of this host left running goes first.
  await sweepDeadWorkers({ knex: db.knex, logger: context.logger });
  const connection = await NativeConnection.connect({ address: endpoint.address });
  lifecycle.add('worker connection', () => connection.close());
  // Tracing's workflow interceptors are bundled only when it is on (docs/architecture.md says why).
  const traced = tracing ? await import('../../worker/tracing.js') : undefined;
  const bundle = await loadWorkflowBundle(
    context.layout.cache,
    context.logger,
    traced ? [traced.TRACING_WORKFLOW_INTERCEPTORS] : [],
  );
  const workers = await createWorkers({
    connection,
    namespace: endpoint.namespace,
    taskQueue: DEFAULT_TASK_QUEUE,
    workflowBundle: bundle,
    maxConcurrentAssistantSessions: context.config.effective.concurrency.maxConversations,
    dependencies: activityDependencies(context, db),
    tracing: traced && tracing ? traced.workerTracing(tracing) : undefined,
  });
  const running = workers.run().catch((error) => {
    context.logger.fatal({ event: 'worker.failed', err: error }, 'worker stopped unexpectedly');
    onFatal(error);
  });
  lifecycle.add('workers', async () => {
    workers.shutdown();
    await running;
  });
  context.logger.info(
    {
      event: 'worker.started',
      taskQueue: DEFAULT_TASK_QUEUE,
      maxConcurrentAssistantSessions: context.config.effective.concurrency.maxConversations,
    },
    'workers started',
  );
  return workers;
}

/** What the worker role runs besides the workers: the cleanup schedule, the turn sweeper, the run reconciler. */
export async function startBackgroundJobs(
  context: CairnContext,
  client: Client,
  namespace: string,
  db: Database,
  lifecycle: Lifecycle,
): Promise<void> {
  await ensureCleanupSchedule(client, {
    taskQueue: DEFAULT_TASK_QUEUE,
    intervalHours: context.environment.cleanup.intervalHours,
  });
  const sweeper = startTurnSweeper({ client, taskQueue: DEFAULT_TASK_QUEUE, db, logger: context.logger });
  lifecycle.add('turn sweeper', () => sweeper.stop());
  const searchAttributes = await searchAttributesRegistered(client.connection, namespace);
  const reconciler = startRunReconciler({
    client,
    taskQueue: DEFAULT_TASK_QUEUE,
    searchAttributes,
    db,
    logger: context.logger,
  });
  lifecycle.add('run reconciler', () => reconciler.stop());
  const syncer = startScheduleSyncer(activityDependencies(context, db), {
    client,
    taskQueue: DEFAULT_TASK_QUEUE,
    searchAttributes,
  });
  lifecycle.add('schedule syncer', () => syncer.stop());
}
