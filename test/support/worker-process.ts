import { join } from 'node:path';
import { openDatabase, type Database } from '../../db/connection.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import { spawnCairn, waitForOutput, type CairnProcess } from './cairn-process.js';
import { startTestCoreApp, type TestCoreApp, type TestCoreAppOptions } from './core-app.js';
import { testServiceContext } from './service-context.js';
import { makeTempDir, makeTempHome } from './temp-dirs.js';
import { testTemporal, type TestTemporal } from './temporal.js';

/** The Temporal server both sides use: the suite's shared one unless a test brings its own. */
export type TemporalAccess = Pick<TestTemporal, 'client'> & { endpoint: { address: string } };

export interface WorkerProcessSetup {
  temporal: TemporalAccess;
  /** The home's SQLite database, shared by the worker process and the API. */
  db: Database;
  /** The API, served in the test's process. */
  app: TestCoreApp;
  /** Kills the `cairn worker` process with SIGKILL, then starts another on the same home. */
  killAndReplaceWorker(): Promise<void>;
  /** Terminates the test's workflow (when it started one) so no retry outlives it, then closes. */
  close(workflowId?: string): Promise<void>;
}

/**
 * A real `cairn worker` process (which a test may kill) on the shared test Temporal server,
 * and the API in this process, both on one fresh home. `env` adds to the worker's environment
 * (the fake assistants'). `ownTemporal` replaces the shared test server.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  appOptions: TestCoreAppOptions = {},
  ownTemporal?: TemporalAccess,
): Promise<WorkerProcessSetup> {
  const temporal = ownTemporal ?? (await testTemporal());
  const home = makeTempHome();
  const cwd = makeTempDir();
  const workerEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    CAIRN_HOME: home.home,
    TEMPORAL_ADDRESS: temporal.endpoint.address,
    LOG_LEVEL: 'warn',
  };
  delete workerEnv.DATABASE_URL;
  const startWorker = async () => {
    const started = spawnCairn(['worker'], { env: workerEnv, cwd: cwd.path });
    await waitForOutput(started, 'worker ready', 120_000);
    return started;
  };
  let worker: CairnProcess | undefined;
  let db: Database | undefined;
  let app: TestCoreApp | undefined;
  const close = async () => {
    await app?.close();
    await worker?.stop('SIGTERM');
    await db?.close();
    home.cleanup();
    cwd.cleanup();
  };
  try {
    worker = await startWorker();
    db = openDatabase({ sqliteFile: join(home.home, 'cairn.db') });
    const context = testServiceContext(db, { home: home.home, env });
    app = await startTestCoreApp(db, context, { temporal, taskQueue: DEFAULT_TASK_QUEUE }, appOptions);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    temporal,
    db,
    app,
    async killAndReplaceWorker() {
      worker!.child.kill('SIGKILL');
      await worker!.exited;
      worker = await startWorker();
    },
    async close(workflowId) {
      if (workflowId) {
        await temporal.client.workflow
          .getHandle(workflowId)
          .terminate('test over')
          .catch(() => undefined);
      }
      await close();
    },
  };
}
