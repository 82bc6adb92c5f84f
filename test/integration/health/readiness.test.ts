import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { checkReadiness, type Readiness } from '../../../services/health/readiness.js';
import { databaseKinds } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { startTestWorkers, testTemporal, type RunningTestWorkers } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';

for (const kind of databaseKinds()) {
  describe(`readiness: the database, Temporal and a worker on every queue (${kind.name})`, function () {
    this.timeout(60_000);
    const home = makeTempDir('cairn-ready-');
    let test: Awaited<ReturnType<typeof kind.create>>;
    let workers: RunningTestWorkers;

    before(async () => {
      test = await kind.create();
      workers = await startTestWorkers(test.db);
    });

    after(async () => {
      await workers?.stop();
      await test?.dispose();
      home.cleanup();
    });

    const context = () => testServiceContext(test.db, { home: home.path });

    it('is ready once workers poll the core, run, assistant and delivery queues', async () => {
      const deps = {
        client: workers.temporal.client,
        namespace: workers.temporal.endpoint.namespace,
        taskQueue: workers.taskQueue,
      };
      let readiness: Readiness | undefined;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
        readiness = await checkReadiness(context(), deps);
        if (readiness.ready) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(readiness?.ready, JSON.stringify(readiness)).to.equal(true);
      expect(readiness!.workers.queues.map((queue) => [queue.kind, queue.pollers > 0])).to.deep.equal([
        ['workflow', true],
        ['workflow', true],
        ['activity', true],
        ['activity', true],
      ]);
    });

    it('is not ready while no worker polls, and says which queues wait', async () => {
      const temporal = await testTemporal();
      const lonely = `lonely-${randomUUID()}`;
      const readiness = await checkReadiness(context(), {
        client: temporal.client,
        namespace: temporal.endpoint.namespace,
        taskQueue: lonely,
      });
      expect(readiness.ready).to.equal(false);
      expect(readiness.database.ok).to.equal(true);
      expect(readiness.temporal.ok).to.equal(true);
      expect(readiness.workers.detail)
        .to.contain(lonely)
        .and.contain(`${lonely}-runs`)
        .and.contain(`${lonely}-assistant`)
        .and.contain(`${lonely}-deliveries`);
    });

    it('is not ready when Temporal does not know the namespace, or the database is gone', async () => {
      const temporal = await testTemporal();
      const unknown = await checkReadiness(context(), {
        client: temporal.client,
        namespace: `missing-${randomUUID()}`,
        taskQueue: workers.taskQueue,
      });
      expect(unknown.ready).to.equal(false);
      expect(unknown.temporal.ok).to.equal(false);
      expect(unknown.temporal.detail).to.be.a('string');

      const gone = await kind.create();
      const goneContext = testServiceContext(gone.db, { home: home.path });
      await gone.dispose();
      const noDatabase = await checkReadiness(goneContext, {
        client: temporal.client,
        namespace: temporal.endpoint.namespace,
        taskQueue: workers.taskQueue,
      });
      expect(noDatabase.ready).to.equal(false);
      expect(noDatabase.database).to.deep.equal({ ok: false, detail: 'the database does not answer' });
    });
  });
}
