// The floor under the workflow-run figures: what the embedded Temporal dev server itself costs
// per activity, with no Cairn code in the way. A workflow runs BENCH_DISPATCH_ACTIVITIES (20)
// activities that do nothing, one after another, first on another task queue (a plain dispatch
// through the server's matching), then on its own queue (eager dispatch: the server hands the
// activity straight back to the worker that scheduled it), BENCH_DISPATCH_ROUNDS (3) times
// each. Prints JSON: milliseconds per activity, each a full round (scheduled, run, completed,
// the next workflow task).
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { toolCacheDir } from '../config/paths.js';
import { provideTemporal } from '../worker/temporal/provide-temporal.js';
import { installTemporalRuntime } from '../worker/runtime.js';
import { createLogger } from '../config/logger.js';
import { printFigures } from './support.js';

const ACTIVITIES = Number(process.env.BENCH_DISPATCH_ACTIVITIES ?? 20);
const ROUNDS = Number(process.env.BENCH_DISPATCH_ROUNDS ?? 3);
const OWN_QUEUE = 'bench-dispatch';
const OTHER_QUEUE = 'bench-dispatch-other';

const quiet = createLogger({ level: 'silent' });
installTemporalRuntime(quiet);
const endpoint = await provideTemporal({
  namespace: 'default',
  env: process.env,
  toolCacheDir: toolCacheDir(process.env),
  ports: 'random',
  ui: false,
  say: (line) => process.stderr.write(`${line}\n`),
});
const connection = await NativeConnection.connect({ address: endpoint.address });
const client = new Client({ connection: await Connection.connect({ address: endpoint.address }) });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./fixtures/dispatch-workflow.ts', import.meta.url)),
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
});
const activities = { nothing: async () => undefined };
const workers = [
  await Worker.create({ connection, taskQueue: OWN_QUEUE, workflowBundle, activities }),
  await Worker.create({ connection, taskQueue: OTHER_QUEUE, activities }),
];
const running = Promise.all(workers.map((worker) => worker.run()));

async function perActivityMs(activityQueue: string): Promise<number[]> {
  const figures: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    await client.workflow.execute('dispatchChain', {
      taskQueue: OWN_QUEUE,
      workflowId: `dispatch-${activityQueue}-${round}-${Date.now()}`,
      args: [ACTIVITIES, activityQueue],
    });
    figures.push(Math.round(((performance.now() - started) / ACTIVITIES) * 10) / 10);
  }
  return figures;
}

try {
  const otherQueue = await perActivityMs(OTHER_QUEUE);
  const ownQueue = await perActivityMs(OWN_QUEUE);
  printFigures('temporal-dispatch', {
    activitiesPerRound: ACTIVITIES,
    msPerActivity: { otherQueue, ownQueueEager: ownQueue },
  });
} finally {
  for (const worker of workers) worker.shutdown();
  await running;
  await client.connection.close();
  await connection.close();
  await endpoint.stop();
}
