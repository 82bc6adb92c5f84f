import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { createContext, type CairnContext } from '../boot/context.js';
import { Lifecycle } from '../boot/lifecycle.js';
import { startTracingIfSet, tracingClientInterceptors } from '../boot/tracing.js';
import { markHomeInUse } from '../../infra/files/home-users.js';
import { CLAUDE_AS_ROOT_FIX, claudeRefusesRoot } from '../../infra/assistants/claude-root-guard.js';

export type Role = 'all' | 'api' | 'worker';

type Endpoint = { address: string; namespace: string; uiUrl?: string; embedded?: boolean };

/**
 * `cairn start` (role all): migrations, Temporal (embedded unless TEMPORAL_ADDRESS), the workers
 * and every HTTP service in one process. `cairn api` and `cairn worker` are the same parts split
 * for scale-out; they connect to TEMPORAL_ADDRESS and never start a server themselves.
 */
export async function runRole(role: Role): Promise<void> {
  const context = createContext();
  const lifecycle = new Lifecycle(context.logger);
  // `cairn restore` refuses a home while a process uses it.
  lifecycle.add('home marker', markHomeInUse(context.layout.home, role));
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
    // Before anything that makes spans: the Temporal client and workers take it from here.
    const tracing = await startTracingIfSet(context, role, lifecycle);
    // The embedded Temporal server is the slowest part and mostly waits on its own process, so it
    // starts first; the migrations and the loading of the worker and HTTP code run meanwhile.
    const [temporal, db, parts] = await allStarted([
      temporalReady(role, context, lifecycle, tracing !== undefined),
      openDatabase(context, lifecycle),
      loadParts(role),
    ]);
    if (parts.workers) {
      await parts.workers.startWorkers(context, temporal.endpoint, db, lifecycle, fatal, tracing);
      await parts.workers.startBackgroundJobs(
        context,
        temporal.client,
        temporal.endpoint.namespace,
        db,
        lifecycle,
      );
    }
    const metricsPort = context.environment.server.metricsPort;
    if (metricsPort !== undefined) {
      const { startMetricsServer } = await import('../boot/metrics-server.js');
      const served = await startMetricsServer(context, db, lifecycle, {
        port: metricsPort,
        sdkMetricsUrl: parts.workers?.temporalSdkMetricsUrl(),
      });
      console.log(`[cairn] metrics on ${served.url}/metrics`);
    }
    if (parts.http) {
      const services = await parts.http.startHttpServices(context, db, temporal.client, lifecycle, {
        sdkMetricsUrl: parts.workers?.temporalSdkMetricsUrl(),
      });
      printBanner(context, role, services, temporal.endpoint);
    } else {
      const { address, namespace } = temporal.endpoint;
      console.log(`[cairn] worker ready on ${address} (namespace ${namespace})`);
    }
  } catch (error) {
    context.logger.error({ event: 'process.start_failed', err: error }, 'start failed');
    console.error(`[cairn] could not start: ${(error as Error).message}`);
    await lifecycle.stop('start failed');
    process.exit(1);
  }
}

/** The embedded server (role all) or TEMPORAL_ADDRESS, and a client connected to it. */
async function temporalReady(
  role: Role,
  context: CairnContext,
  lifecycle: Lifecycle,
  traced: boolean,
): Promise<{ endpoint: Endpoint; client: Client }> {
  const { startTemporal, externalTemporal, connectClient } = await import('../boot/temporal.js');
  const endpoint = role === 'all' ? await startTemporal(context, lifecycle) : externalTemporal(context);
  const interceptors = traced ? await tracingClientInterceptors() : [];
  return { endpoint, client: await connectClient(endpoint, lifecycle, interceptors) };
}

async function openDatabase(context: CairnContext, lifecycle: Lifecycle) {
  const { openMigratedDatabase } = await import('../boot/database.js');
  const db = await openMigratedDatabase(context);
  lifecycle.add('database', () => db.close());
  return db;
}

/** Each role loads only its own parts: `cairn worker` never loads the HTTP side (Koa, the routes, their schemas), `cairn api` never the worker SDK. */
async function loadParts(role: Role) {
  const [workers, http] = await Promise.all([
    role === 'api' ? undefined : import('../boot/workers.js'),
    role === 'worker' ? undefined : import('../boot/http.js'),
  ]);
  return { workers, http };
}

/**
 * Like Promise.all, but a failure is thrown only once every part has settled, so that whatever
 * did start (the Temporal server) is registered with the lifecycle and stopped with it.
 */
async function allStarted<T extends readonly unknown[] | []>(
  parts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(parts as readonly unknown[]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

function printBanner(
  context: CairnContext,
  role: Role,
  services: Array<{ name: string; url: string }>,
  temporal: Endpoint,
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
  // Turns run where the workers run: say it before the first one fails (AMENDMENTS A.10).
  if (role !== 'api' && claudeRefusesRoot(process.env)) {
    lines.push(
      `  ! Cairn runs as root: Claude Code will refuse every Claude turn. To fix it, ${CLAUDE_AS_ROOT_FIX}.`,
    );
    context.logger.warn(
      { event: 'assistant.claude_refuses_root' },
      `Claude Code refuses to run as root: ${CLAUDE_AS_ROOT_FIX}`,
    );
  }
  console.log(lines.join('\n'));
}
