// Records the event histories replayed by test/integration/temporal/replay.test.ts. Run it after
// adding a workflow worth guarding (npm run histories) and commit the JSON files: a later change
// that would break in-flight executions then fails CI until it uses patched() or a new name.
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { databaseKinds } from '../test/support/databases.js';
import { stopTestTemporal, withTestWorkers } from '../test/support/temporal.js';

const historyDir = new URL('../test/history_files/', import.meta.url);

const database = await databaseKinds()[0]!.create();
try {
  await withTestWorkers(database.db, async ({ temporal, taskQueue }) => {
    const handle = await temporal.client.workflow.start('systemCheck', {
      taskQueue,
      workflowId: 'history-system-check',
      args: [],
    });
    await handle.result();
    const history = await handle.fetchHistory();
    writeFileSync(
      new URL('system-check.json', historyDir),
      `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`,
    );
    console.log(`recorded system-check.json (${history.events?.length ?? 0} events)`);
  });
} finally {
  await database.dispose();
  await stopTestTemporal();
}
