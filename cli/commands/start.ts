import { performance } from 'node:perf_hooks';
import { createContext, type CairnContext } from '../boot/context.js';
import { openMigratedDatabase } from '../boot/database.js';
import { Lifecycle } from '../boot/lifecycle.js';
import { connectClient, externalTemporal, startTemporal, startWorkers } from '../boot/temporal.js';
import { ensureCleanupSchedule } from '../../services/cleanup/cleanup-schedule.js';
import { startTurnSweeper } from '../../worker/turn-sweeper.js';
import { startRunReconciler } from '../../worker/run-reconciler.js';
import { searchAttributesRegistered } from '../../infra/temporal/search-attributes.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';

export type Role = 'all' | 'api' | 'worker';

/**
 * `cairn start` (role all): migrations, Temporal (embedded unless TEMPORAL_ADDRESS), the workers
 * and every HTTP service in one process. `cairn api` and `cairn worker` are the same parts split
 * for scale-out; they connect to TEMPORAL_ADDRESS and never start a server themselves.
 */
export async function runRole(role: Role): Promise<void> {
  const context = createContext();
  const lifecycle = new Lifecycle(context.logger);
  lifecycle.add('config watches', () => context.configSource.close());
  lifecycle.stopOnSignals();
  const fatal = (error: unknown) => {
    context.logger.fatal({ event: 'process.fatal', err: error }, 'fatal error');
    void lifecycle.stop('fatal error').then(() => process.exit(1));
  };
  // Whatever escapes still stops the children (the embedded Temporal server) before exiting.
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  try {
    const db = await openMigratedDatabase(context);
    lifecycle.add('database', () => db.close());
    const temporal = role === 'all' ? await startTemporal(context, lifecycle) : externalTemporal(context);
    const client = await connectClient(temporal, lifecycle);
    if (role !== 'api') {
      await startWorkers(context, temporal, db, lifecycle, fatal);
      await ensureCleanupSchedule(client, {
        taskQueue: DEFAULT_TASK_QUEUE,
        intervalHours: context.environment.cleanup.intervalHours,
      });
      const sweeper = startTurnSweeper({ client, taskQueue: DEFAULT_TASK_QUEUE, db, logger: context.logger });
      lifecycle.add('turn sweeper', () => sweeper.stop());
      const reconciler = startRunReconciler({
        client,
        taskQueue: DEFAULT_TASK_QUEUE,
        searchAttributes: await searchAttributesRegistered(client.connection, temporal.namespace),
        db,
        logger: context.logger,
      });
      lifecycle.add('run reconciler', () => reconciler.stop());
    }
    if (role !== 'worker') {
      // Loaded here: `cairn worker` never loads the HTTP side (Koa, the routes, their schemas).
      const { startHttpServices } = await import('../boot/http.js');
      const services = await startHttpServices(context, db, client, lifecycle);
      printBanner(context, role, services, temporal);
    } else {
      console.log(`[cairn] worker ready on ${temporal.address} (namespace ${temporal.namespace})`);
    }
  } catch (error) {
    context.logger.error({ event: 'process.start_failed', err: error }, 'start failed');
    console.error(`[cairn] could not start: ${(error as Error).message}`);
    await lifecycle.stop('start failed');
    process.exit(1);
  }
}

function printBanner(
  context: CairnContext,
  role: Role,
  services: Array<{ name: string; url: string }>,
  temporal: { address: string; namespace: string; uiUrl?: string; embedded?: boolean },
): void {
  const seconds = (performance.now() / 1000).toFixed(1);
  const lines = [
    `[cairn] Cairn ${context.pkg.version} ready in ${seconds} s (${role === 'all' ? 'all roles' : role})`,
  ];
  for (const service of services)
    lines.push(`  ${service.name.padEnd(12)} ${service.url}   OpenAPI: ${service.url}/api/openapi.json`);
  const kind = temporal.embedded ? `embedded, data in ${context.layout.temporalDatabaseFile}` : 'external';
  lines.push(`  ${'temporal'.padEnd(12)} ${temporal.address} (${kind}, namespace ${temporal.namespace})`);
  if (temporal.uiUrl) lines.push(`  ${'temporal ui'.padEnd(12)} ${temporal.uiUrl}`);
  const database = context.environment.server.databaseUrl
    ? 'postgres (DATABASE_URL)'
    : context.layout.databaseFile;
  lines.push(`  ${'database'.padEnd(12)} ${database}`);
  lines.push(`  ${'home'.padEnd(12)} ${context.layout.home}`);
  console.log(lines.join('\n'));
}
