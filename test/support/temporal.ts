import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { toolCacheDir } from '../../config/paths.js';
import { createLogger } from '../../config/logger.js';
import { findTemporalCli } from '../../worker/temporal/find-cli.js';
import { provideTemporal, type TemporalEndpoint } from '../../worker/temporal/provide-temporal.js';
import { installTemporalRuntime } from '../../worker/runtime.js';
import { loadWorkflowBundle } from '../../worker/workflow-bundle.js';
import { createWorkers, type WorkerSet } from '../../worker/create-workers.js';
import type { Database } from '../../db/connection.js';
import { makeTempDir } from './temp-dirs.js';
import { testServiceContext } from './service-context.js';
import type { ServiceContext } from '../../services/context.js';

export interface TestTemporal {
  endpoint: TemporalEndpoint;
  client: Client;
  nativeConnection: NativeConnection;
  bundle: { code: string };
}

// Mocha loads a test file with require() unless its imports need ESM (an ESM-only package such as
// @octokit/webhooks), then with import(): one process can hold two instances of this module, and
// the root hook's would not know the other's server (mocha then never exits). The server lives on
// globalThis, so every instance shares the one server and the root hook stops it.
const state = ((globalThis as Record<symbol, unknown>)[Symbol.for('cairn.test.temporal')] ??= {}) as {
  shared?: Promise<TestTemporal>;
};
const quietLogger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * One Temporal dev server for the whole test run, started on first use (in-memory, random
 * port). TEMPORAL_ADDRESS points the suite at an existing server instead.
 */
export function testTemporal(): Promise<TestTemporal> {
  state.shared ??= (async () => {
    installTemporalRuntime(quietLogger);
    const endpoint = await provideTemporal({
      address: process.env.TEMPORAL_ADDRESS,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      cliPath: process.env.TEMPORAL_CLI_PATH,
      env: process.env,
      toolCacheDir: toolCacheDir(process.env),
      ports: 'random',
      ui: false,
      say: (line) => process.stderr.write(`${line}\n`),
    });
    const connection = await Connection.connect({ address: endpoint.address });
    const client = new Client({ connection, namespace: endpoint.namespace });
    const nativeConnection = await NativeConnection.connect({ address: endpoint.address });
    const bundleCache = makeTempDir('cairn-bundle-');
    const bundle = await loadWorkflowBundle(bundleCache.path, quietLogger);
    bundleCache.cleanup();
    return { endpoint, client, nativeConnection, bundle };
  })();
  return state.shared;
}

/** The Temporal CLI's path, for a test that runs a server of its own (the suite's server makes sure it exists). */
export async function testTemporalCli(): Promise<string> {
  await testTemporal();
  const cli = findTemporalCli({
    explicitPath: process.env.TEMPORAL_CLI_PATH,
    pathVariable: process.env.PATH,
    toolCacheDir: toolCacheDir(process.env),
  });
  if (!cli) throw new Error('the Temporal CLI should exist once the test server runs');
  return cli.path;
}

export async function stopTestTemporal(): Promise<void> {
  if (!state.shared) return;
  const temporal = await state.shared;
  state.shared = undefined;
  await temporal.client.connection.close();
  await temporal.nativeConnection.close();
  await temporal.endpoint.stop();
}

export interface RunningTestWorkers {
  temporal: TestTemporal;
  taskQueue: string;
  workers: WorkerSet;
  stop(): Promise<void>;
}

/** Starts a fresh pair of workers on their own task queue; stop() shuts them down. */
export async function startTestWorkers(
  db: Database,
  options: {
    maxConcurrentAssistantSessions?: number;
    coreActivitySlots?: number;
    dependencies?: ServiceContext;
  } = {},
): Promise<RunningTestWorkers> {
  const home = options.dependencies ? undefined : makeTempDir('cairn-worker-home-');
  const temporal = await testTemporal();
  const taskQueue = `test-${randomUUID()}`;
  const workers = await createWorkers({
    connection: temporal.nativeConnection,
    namespace: temporal.endpoint.namespace,
    taskQueue,
    workflowBundle: temporal.bundle,
    maxConcurrentAssistantSessions: options.maxConcurrentAssistantSessions ?? 4,
    coreActivitySlots: options.coreActivitySlots,
    shutdownGraceTime: '2 seconds',
    dependencies: options.dependencies ?? testServiceContext(db, { home: home!.path, logger: quietLogger }),
  });
  const running = workers.run();
  return {
    temporal,
    taskQueue,
    workers,
    async stop() {
      workers.shutdown();
      await running;
      home?.cleanup();
    },
  };
}

/** Runs `body` while a fresh pair of workers (own task queue) serves it, then stops them. */
export async function withTestWorkers<T>(
  db: Database,
  body: (context: { temporal: TestTemporal; taskQueue: string; workers: WorkerSet }) => Promise<T>,
  options: { maxConcurrentAssistantSessions?: number; dependencies?: ServiceContext } = {},
): Promise<T> {
  const running = await startTestWorkers(db, options);
  try {
    return await body(running);
  } finally {
    await running.stop();
  }
}
