import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { provideTemporal, type TemporalEndpoint } from '../../worker/temporal/provide-temporal.js';
import { installTemporalRuntime } from '../../worker/runtime.js';
import { loadWorkflowBundle } from '../../worker/workflow-bundle.js';
import { createWorkers, type WorkerSet } from '../../worker/create-workers.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import type { Database } from '../../db/connection.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';
import { activityDependencies } from './activity-dependencies.js';

const say = (line: string) => console.log(line);

/** TEMPORAL_ADDRESS, or the embedded dev server persisted at <home>/temporal.db. */
export async function startTemporal(context: CairnContext, lifecycle: Lifecycle): Promise<TemporalEndpoint> {
  const { temporal } = context.environment;
  const endpoint = await provideTemporal({
    address: temporal.address,
    namespace: temporal.namespace,
    cliPath: temporal.cliPath,
    env: process.env,
    toolCacheDir: context.environment.general.toolCache,
    databaseFile: context.layout.temporalDatabaseFile,
    ports: 'standard',
    ui: true,
    uiPort: temporal.uiPort,
    say,
  });
  if (endpoint.embedded) lifecycle.add('temporal dev server', () => endpoint.stop());
  context.logger.info(
    {
      event: 'temporal.ready',
      address: endpoint.address,
      namespace: endpoint.namespace,
      embedded: endpoint.embedded,
    },
    'temporal ready',
  );
  return endpoint;
}

/** The address `cairn api` and `cairn worker` use: they never start a server of their own. */
export function externalTemporal(context: CairnContext): { address: string; namespace: string } {
  return {
    address: context.environment.temporal.address ?? '127.0.0.1:7233',
    namespace: context.environment.temporal.namespace,
  };
}

export async function connectClient(
  endpoint: { address: string; namespace: string },
  lifecycle: Lifecycle,
): Promise<Client> {
  const connection = await Connection.connect({ address: endpoint.address });
  lifecycle.add('temporal client', () => connection.close());
  return new Client({ connection, namespace: endpoint.namespace });
}

/** Starts both workers; a worker that fails stops the whole process (via onFatal). */
export async function startWorkers(
  context: CairnContext,
  endpoint: { address: string; namespace: string },
  db: Database,
  lifecycle: Lifecycle,
  onFatal: (error: unknown) => void,
): Promise<WorkerSet> {
  installTemporalRuntime(context.logger);
  const connection = await NativeConnection.connect({ address: endpoint.address });
  lifecycle.add('worker connection', () => connection.close());
  const bundle = await loadWorkflowBundle(context.layout.cache, context.logger);
  const workers = await createWorkers({
    connection,
    namespace: endpoint.namespace,
    taskQueue: DEFAULT_TASK_QUEUE,
    workflowBundle: bundle,
    maxConcurrentAssistantSessions: context.config.effective.concurrency.maxConversations,
    dependencies: activityDependencies(context, db),
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
