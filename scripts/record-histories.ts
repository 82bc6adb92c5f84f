// Records the event histories replayed by test/integration/temporal/replay.test.ts. Run it after
// adding a workflow worth guarding (npm run histories) and commit the JSON files: a later change
// that would break in-flight executions then fails CI until it uses patched() or a new name.
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { WorkflowHandle } from '@temporalio/client';
import { databaseKinds } from '../test/support/databases.js';
import { makeBareRemote, makeTempRepo } from '../test/support/git-repos.js';
import { stopTestTemporal, withTestWorkers } from '../test/support/temporal.js';

const historyDir = new URL('../test/history_files/', import.meta.url);

async function save(name: string, handle: WorkflowHandle): Promise<void> {
  await handle.result();
  const history = await handle.fetchHistory();
  writeFileSync(
    new URL(name, historyDir),
    `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`,
  );
  console.log(`recorded ${name} (${history.events?.length ?? 0} events)`);
}

const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

const database = await databaseKinds()[0]!.create();
const source = makeTempRepo();
const remote = makeBareRemote(source.path);
try {
  await withTestWorkers(database.db, async ({ temporal, taskQueue }) => {
    const start = (workflow: string, workflowId: string, args: unknown[] = []) =>
      temporal.client.workflow.start(workflow, { taskQueue, workflowId, args });
    if (wanted('system-check.json'))
      await save('system-check.json', await start('systemCheck', 'history-system-check'));
    if (wanted('codebase-registration.json')) {
      const input = { url: remote.url, allowEnvKeys: false };
      await save(
        'codebase-registration.json',
        await start('codebaseRegistration', 'history-registration', [input]),
      );
    }
    if (wanted('cleanup-pass.json'))
      await save('cleanup-pass.json', await start('cleanupPass', 'history-cleanup'));
  });
} finally {
  await database.dispose();
  source.cleanup();
  remote.cleanup();
  await stopTestTemporal();
}
