import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { provideTemporal, type TemporalEndpoint } from '../../worker/temporal/provide-temporal.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';

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
  /** Tracing's, when it is on: each start and signal continues the caller's trace. */
  workflowInterceptors: WorkflowClientInterceptor[] = [],
): Promise<Client> {
  const connection = await Connection.connect({ address: endpoint.address });
  lifecycle.add('temporal client', () => connection.close());
  return new Client({
    connection,
    namespace: endpoint.namespace,
    interceptors: { workflow: workflowInterceptors },
  });
}
