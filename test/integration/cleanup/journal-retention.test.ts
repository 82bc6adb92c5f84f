import { expect } from 'chai';
import { createConversation } from '../../../db/repositories/conversations.js';
import { PURGE_BATCH } from '../../../db/repositories/event-retention.js';
import {
  appendEvent,
  DASHBOARD_STREAM,
  readEventsAfter,
  SYSTEM_STREAM,
} from '../../../db/repositories/events.js';
import { listRunEvents } from '../../../db/repositories/run-events.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import type { RunStatus } from '../../../domain/runs/run-status.js';
import { runCleanupPass, type CleanupSettings } from '../../../services/cleanup/cleanup-pass.js';
import type { ServiceContext } from '../../../services/context.js';
import { recordRunEvent } from '../../../services/runs/run-journal.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempHome } from '../../support/temp-dirs.js';

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();
const settings: CleanupSettings = {
  staleThresholdDays: 14,
  maxWorktreesPerCodebase: 25,
  sessionRetentionDays: 30,
};

for (const kind of databaseKinds()) {
  describe(`journal retention (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let home: ReturnType<typeof makeTempHome>;
    let context: ServiceContext;

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempHome();
      context = testServiceContext(test.db, { home: home.home });
    });
    afterEach(async () => {
      await test.dispose();
      home.cleanup();
    });

    /** A conversation with one text event, last active `activeDaysAgo`, deleted `deletedDaysAgo`. */
    async function conversation(activeDaysAgo: number, deletedDaysAgo?: number): Promise<string> {
      const { id } = await createConversation(test.db.knex, { platform: 'web' });
      await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { text: 'hi' } });
      await test.db
        .knex('conversations')
        .where({ id })
        .update({
          last_activity_at: daysAgo(activeDaysAgo),
          deleted_at: deletedDaysAgo === undefined ? null : daysAgo(deletedDaysAgo),
        });
      return id;
    }

    /** A run with two events, in `status`; an ended one ended `endedDaysAgo`. */
    async function run(conversationId: string | null, status: RunStatus, endedDaysAgo = 0): Promise<string> {
      const { knex } = test.db;
      const { id } = await createRun(knex, { workflowName: 'assist', definition: {}, conversationId });
      await recordRunEvent(knex, { runId: id, conversationId, type: 'run_started' });
      await recordRunEvent(knex, { runId: id, conversationId, type: 'node_completed', nodeId: 'plan' });
      await transitionRun(knex, id, ['pending'], status);
      if (endedDaysAgo > 0)
        await knex('workflow_runs')
          .where({ id })
          .update({ completed_at: daysAgo(endedDaysAgo) });
      return id;
    }

    const streamTypes = async (streamKey: string) =>
      (await readEventsAfter(test.db.knex, streamKey, 0)).map((event) => event.type);
    const dashboardRuns = async () =>
      new Set((await readEventsAfter(test.db.knex, DASHBOARD_STREAM, 0)).map((event) => event.payload.runId));

    it('removes finished streams older than the retention and keeps recent and active ones', async () => {
      const finished = await conversation(40);
      const finishedRun = await run(finished, 'completed', 40);
      const recent = await conversation(1);
      const recentRun = await run(recent, 'failed', 1);
      const busy = await conversation(40);
      const busyRun = await run(busy, 'running');
      const active = await conversation(0);
      const oldRunOfActive = await run(active, 'completed', 40);
      const deletedRecently = await conversation(40, 1);
      const deletedLongAgo = await conversation(40, 35);
      const loneOldRun = await run(null, 'cancelled', 40);
      const loneRecentRun = await run(null, 'completed', 2);

      const report = await runCleanupPass(context, settings);

      expect(await streamTypes(finished)).to.deep.equal([]);
      expect(await streamTypes(deletedLongAgo)).to.deep.equal([]);
      expect(await listRunEvents(test.db.knex, finishedRun)).to.deep.equal([]);
      expect(await listRunEvents(test.db.knex, loneOldRun)).to.deep.equal([]);
      expect(await streamTypes(recent)).to.deep.equal(['text', 'run_started', 'node_completed']);
      expect(await streamTypes(busy)).to.deep.equal(['text', 'run_started', 'node_completed']);
      expect(await streamTypes(active)).to.deep.equal(['text', 'run_started', 'node_completed']);
      expect(
        await streamTypes(deletedRecently),
        'a recently deleted conversation keeps its events',
      ).to.deep.equal(['text']);
      for (const kept of [recentRun, busyRun, oldRunOfActive, loneRecentRun]) {
        expect(await listRunEvents(test.db.knex, kept)).to.have.length(2);
      }
      expect(await dashboardRuns()).to.deep.equal(
        new Set([recentRun, busyRun, oldRunOfActive, loneRecentRun]),
      );
      // The finished conversation's text and run events and the one deleted long ago's text; the lone run's.
      expect(report.deletedEvents).to.deep.equal({ conversations: 3 + 1, runs: 2, dashboard: 0, system: 0 });
    });

    it('removes housekeeping older than the retention, never that of the last week', async () => {
      const { knex } = test.db;
      for (const age of [40, 20, 3]) {
        const event = await appendEvent(knex, {
          streamKey: SYSTEM_STREAM,
          type: 'runs_reconciled',
          payload: { age },
        });
        await knex('events')
          .where('id', event.id)
          .update({ created_at: daysAgo(age) });
      }
      const ages = async () =>
        (await readEventsAfter(knex, SYSTEM_STREAM, 0)).flatMap((event) =>
          event.payload.age ? [event.payload.age] : [],
        );

      expect((await runCleanupPass(context, settings)).deletedEvents.system).to.equal(1);
      expect(await ages()).to.deep.equal([20, 3]);
      expect(
        (await runCleanupPass(context, { ...settings, sessionRetentionDays: 1 })).deletedEvents.system,
      ).to.equal(1);
      expect(await ages()).to.deep.equal([3]);
      expect(await streamTypes(SYSTEM_STREAM)).to.deep.equal([
        'runs_reconciled',
        'cleanup_pass',
        'cleanup_pass',
      ]);
    });

    it("removes the dashboard's copies from before one row per event with their runs", async () => {
      const { knex } = test.db;
      const oldRun = await run(null, 'completed', 40);
      const keptRun = await run(null, 'running');
      for (const runId of [oldRun, keptRun, 'deleted-run']) {
        const copy = await appendEvent(knex, {
          streamKey: DASHBOARD_STREAM,
          type: 'run_started',
          payload: { runId },
        });
        await knex('events')
          .where('id', copy.id)
          .update({ created_at: daysAgo(40) });
      }
      const report = await runCleanupPass(context, settings);
      expect(report.deletedEvents).to.include({ runs: 2, dashboard: 2 });
      expect(
        (await readEventsAfter(knex, DASHBOARD_STREAM, 0)).map((event) => event.payload.runId),
      ).to.deep.equal([keptRun, keptRun, keptRun]);
    });

    it('deletes in batches, however many events a stream holds', async () => {
      const { knex } = test.db;
      const finished = await conversation(40);
      const rows = Array.from({ length: PURGE_BATCH + 10 }, (_, index) => ({
        stream_key: finished,
        type: 'text',
        payload: JSON.stringify({ index }),
        created_at: daysAgo(40),
      }));
      await knex.batchInsert('events', rows, 500);
      const report = await runCleanupPass(context, settings);
      expect(report.deletedEvents.conversations).to.equal(PURGE_BATCH + 11);
      expect(await streamTypes(finished)).to.deep.equal([]);
    });
  });
}
