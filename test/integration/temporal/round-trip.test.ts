import { expect } from 'chai';
import { hostname } from 'node:os';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { withTestWorkers } from '../../support/temporal.js';
import type { SystemCheckResult } from '../../../workflows/system/system-check.js';

describe('Temporal round trip through a real worker', function () {
  // The first test of a run may have to build the Temporal CLI (minutes) before anything else.
  this.timeout(20 * 60_000);

  for (const kind of databaseKinds()) {
    it(`runs systemCheck through the core and assistant queues (${kind.name})`, async () => {
      const test: TestDatabase = await kind.create();
      try {
        const result = await withTestWorkers(test.db, async ({ temporal, taskQueue }) => {
          return temporal.client.workflow.execute('systemCheck', {
            taskQueue,
            workflowId: `system-check-${taskQueue}`,
            args: [],
          }) as Promise<SystemCheckResult>;
        });
        expect(result.database).to.deep.equal({ dialect: kind.name, ok: true });
        expect(result.coreWorker).to.deep.equal({ host: hostname(), pid: process.pid });
        expect(result.assistantWorker).to.deep.equal({ host: hostname(), pid: process.pid });
      } finally {
        await test.dispose();
      }
    });
  }
});
