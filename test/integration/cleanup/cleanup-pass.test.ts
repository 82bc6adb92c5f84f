import { findInboundDelivery, recordInboundDelivery } from '../../../db/repositories/inbound-deliveries.js';
import { expect } from 'chai';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduleHandle } from '@temporalio/client';
import {
  runCleanupPass,
  SYSTEM_STREAM,
  type CleanupSettings,
} from '../../../services/cleanup/cleanup-pass.js';
import { reapEnvironment } from '../../../services/cleanup/reap-environment.js';
import { registerLocalPath } from '../../../services/codebases/register-local-path.js';
import { ensureWorktree } from '../../../services/worktrees/worktrees.js';
import { createAssistantSession } from '../../../db/repositories/assistant-sessions.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { readEventsAfter } from '../../../db/repositories/events.js';
import {
  listEnvironments,
  type IsolationEnvironment,
} from '../../../db/repositories/isolation-environments.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import type { Codebase } from '../../../db/repositories/codebases.js';
import { cleanupScheduleId, ensureCleanupSchedule } from '../../../services/cleanup/cleanup-schedule.js';
import type { CleanupPassResult } from '../../../workflows/cleanup/cleanup-pass.js';
import type { ServiceContext } from '../../../services/context.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { withTestWorkers } from '../../support/temporal.js';

const DAY_MS = 86_400_000;
/** What the pass calls in use: conversations active within the stale threshold count. */
const inUseSince = (at: Date) => ({
  activeSince: new Date(at.getTime() - settings.staleThresholdDays * DAY_MS).toISOString(),
});

/** The workflow a schedule started first; a trigger is acted on by the schedule shortly after. */
async function firstWorkflowStartedBy(handle: ScheduleHandle): Promise<string> {
  for (;;) {
    const { info } = await handle.describe();
    const action = info.recentActions[0]?.action ?? info.runningActions[0];
    if (action) return action.workflow.workflowId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const settings: CleanupSettings = {
  staleThresholdDays: 14,
  maxWorktreesPerCodebase: 25,
  sessionRetentionDays: 30,
};

for (const kind of databaseKinds()) {
  describe(`cleanup pass (${kind.name})`, function () {
    this.timeout(120_000);
    let test: TestDatabase;
    let home: ReturnType<typeof makeTempDir>;
    let checkout: TempRepo;
    let context: ServiceContext;
    let codebase: Codebase;

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      checkout = makeTempRepo();
      context = testServiceContext(test.db, { home: home.path });
      const outcome = await registerLocalPath(context, { path: checkout.path, allowEnvKeys: false });
      if (outcome.outcome !== 'registered') throw new Error('registration blocked');
      codebase = outcome.codebase;
    });
    afterEach(async () => {
      await test.dispose();
      home.cleanup();
      checkout.cleanup();
    });

    const worktreeInput = (key: string) => ({
      db: test.db,
      codebaseId: codebase.id,
      sourcePath: codebase.sourcePath,
      worktreesRoot: join(codebase.sourcePath, '..', 'worktrees'),
      kind: 'task' as const,
      key,
    });

    async function worktree(key: string, ageDays = 0): Promise<IsolationEnvironment> {
      const { environment } = await ensureWorktree(worktreeInput(key));
      const lastActivity = new Date(Date.now() - ageDays * DAY_MS).toISOString();
      await test.db
        .knex('isolation_environments')
        .where({ id: environment.id })
        .update({ last_activity_at: lastActivity });
      return { ...environment, lastActivityAt: lastActivity };
    }

    /** One environment through the cleanup's removal, as the pass would with this snapshot. */
    const reap = (snapshot: IsolationEnvironment) =>
      reapEnvironment(test.db, snapshot, codebase.sourcePath, inUseSince(new Date()));

    const statusOf = async (id: string) =>
      (await listEnvironments(test.db.knex, codebase.id)).find((e) => e.id === id)?.status;

    it('removes stale clean worktrees, keeps dirty, fresh and in-use ones', async () => {
      const stale = await worktree('stale', 20);
      const dirty = await worktree('dirty', 20);
      writeFileSync(join(dirty.path, 'work-in-progress.txt'), 'not committed\n');
      const fresh = await worktree('fresh', 1);
      const busy = await worktree('busy', 30);
      const run = await createRun(test.db.knex, {
        workflowName: 'assist',
        definition: {},
        codebaseId: codebase.id,
      });
      await test.db.knex('workflow_runs').where({ id: run.id }).update({ isolation_environment_id: busy.id });
      await transitionRun(test.db.knex, run.id, ['pending'], 'running');

      const report = await runCleanupPass(context, settings);
      expect(report.removedStale).to.deep.equal([stale.id]);
      expect(report.keptDirty).to.deep.equal([dirty.id]);
      expect(report.keptInUse).to.deep.equal([busy.id]);
      expect(existsSync(stale.path)).to.equal(false);
      expect(existsSync(dirty.path)).to.equal(true);
      expect(await statusOf(stale.id)).to.equal('destroyed');
      for (const kept of [dirty, fresh, busy]) expect(await statusOf(kept.id)).to.equal('active');
    });

    it('marks environments whose folder vanished as destroyed', async () => {
      const gone = await worktree('gone', 0);
      rmSync(gone.path, { recursive: true, force: true });
      const report = await runCleanupPass(context, settings);
      expect(report.vanished).to.deep.equal([gone.id]);
      expect(await statusOf(gone.id)).to.equal('destroyed');
    });

    it('keeps at most MAX_WORKTREES_PER_CODEBASE, removing the oldest inactive first', async () => {
      const oldest = await worktree('one', 5);
      const older = await worktree('two', 4);
      const newer = await worktree('three', 3);
      const newest = await worktree('four', 2);
      const report = await runCleanupPass(context, { ...settings, maxWorktreesPerCodebase: 2 });
      expect(report.removedOverLimit).to.deep.equal([oldest.id, older.id]);
      expect(await statusOf(newer.id)).to.equal('active');
      expect(await statusOf(newest.id)).to.equal('active');
    });

    it('deletes assistant sessions inactive past the retention, old delivery records, and records the pass in the journal', async () => {
      const conversation = await createConversation(test.db.knex, { platform: 'web' });
      const old = await createAssistantSession(test.db.knex, {
        conversationId: conversation.id,
        assistant: 'claude',
      });
      await createAssistantSession(test.db.knex, { conversationId: conversation.id, assistant: 'codex' });
      await test.db
        .knex('assistant_sessions')
        .where({ id: old.id })
        .update({ last_activity_at: new Date(Date.now() - 31 * DAY_MS).toISOString() });
      await recordInboundDelivery(test.db.knex, {
        source: 'telegram:1',
        deliveryId: 'old',
        outcome: 'ignored',
      });
      await recordInboundDelivery(test.db.knex, {
        source: 'telegram:1',
        deliveryId: 'new',
        outcome: 'ignored',
      });
      await test.db
        .knex('inbound_deliveries')
        .where({ delivery_id: 'old' })
        .update({ received_at: new Date(Date.now() - 8 * DAY_MS).toISOString() });
      const report = await runCleanupPass(context, settings);
      expect(report.deletedSessions).to.equal(1);
      expect(report.deletedDeliveries).to.equal(1);
      expect(await findInboundDelivery(test.db.knex, 'telegram:1', 'new')).to.not.equal(undefined);
      const recorded = await readEventsAfter(test.db.knex, SYSTEM_STREAM, 0);
      expect(recorded.map((e) => e.type)).to.deep.equal(['cleanup_pass']);
      expect(recorded[0]!.payload).to.include({ deletedSessions: 1, deletedDeliveries: 1 });
    });

    it('never removes a worktree adopted after the pass took its snapshot', async () => {
      const snapshot = await worktree('adopted-later', 20);
      // A conversation's turn adopts the worktree between the pass's listing and its removal.
      await ensureWorktree(worktreeInput('adopted-later'));
      expect(await reap(snapshot)).to.equal('kept_in_use');
      expect(existsSync(snapshot.path)).to.equal(true);
      expect(await statusOf(snapshot.id)).to.equal('active');
    });

    it('re-checks use under the lock: a run started after the snapshot keeps its worktree', async () => {
      const snapshot = await worktree('run-later', 20);
      const run = await createRun(test.db.knex, {
        workflowName: 'assist',
        definition: {},
        codebaseId: codebase.id,
      });
      await test.db
        .knex('workflow_runs')
        .where({ id: run.id })
        .update({ isolation_environment_id: snapshot.id });
      expect(await reap(snapshot)).to.equal('kept_in_use');
      expect(await statusOf(snapshot.id)).to.equal('active');
    });

    it('gives the claim back when the worktree turns out dirty', async () => {
      const snapshot = await worktree('dirty-claim', 20);
      writeFileSync(join(snapshot.path, 'wip.txt'), 'not committed\n');
      expect(await reap(snapshot)).to.equal('kept_dirty');
      expect(await statusOf(snapshot.id)).to.equal('active');
    });

    it("keeps a conversation's worktree between turns while the conversation is recent", async () => {
      const between = await worktree('between-turns', 20);
      const deleted = await worktree('deleted-conversation', 20);
      const idle = await worktree('idle-conversation', 20);
      const attach = async (environment: IsolationEnvironment, changes: Record<string, unknown>) => {
        const conversation = await createConversation(test.db.knex, { platform: 'web' });
        await test.db
          .knex('conversations')
          .where({ id: conversation.id })
          .update({ isolation_environment_id: environment.id, ...changes });
      };
      await attach(between, { last_activity_at: new Date(Date.now() - DAY_MS).toISOString() });
      await attach(deleted, { deleted_at: new Date().toISOString() });
      await attach(idle, { last_activity_at: new Date(Date.now() - 20 * DAY_MS).toISOString() });

      const report = await runCleanupPass(context, settings);
      expect(report.keptInUse).to.deep.equal([between.id]);
      expect([...report.removedStale].sort()).to.deep.equal([deleted.id, idle.id].sort());
      expect(existsSync(between.path)).to.equal(true);
    });

    it('runs as a Temporal Schedule that fires the cleanupPass workflow, which also reconciles runs', async () => {
      const stale = await worktree('scheduled', 40);
      // Running in the database, for an hour already, with no execution anywhere.
      const lost = await createRun(test.db.knex, { workflowName: 'assist', definition: {} });
      await transitionRun(test.db.knex, lost.id, ['pending'], 'running');
      const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await test.db.knex('workflow_runs').where({ id: lost.id }).update({ updated_at: anHourAgo });
      await withTestWorkers(
        test.db,
        async ({ temporal, taskQueue }) => {
          const scheduleId = await ensureCleanupSchedule(temporal.client, { taskQueue, intervalHours: 6 });
          expect(scheduleId).to.equal(cleanupScheduleId(taskQueue));
          // A second call (another worker starting) updates instead of failing.
          await ensureCleanupSchedule(temporal.client, { taskQueue, intervalHours: 3 });
          const handle = temporal.client.schedule.getHandle(scheduleId);
          try {
            const description = await handle.describe();
            expect(description.spec.intervals?.[0]?.every).to.equal(3 * 3_600_000);
            await handle.trigger();
            const workflowId = await firstWorkflowStartedBy(handle);
            const report = (await temporal.client.workflow
              .getHandle(workflowId)
              .result()) as CleanupPassResult;
            expect(report.removedStale).to.deep.equal([stale.id]);
            expect(report.reconciledRuns).to.deep.equal([
              { runId: lost.id, was: 'running', action: 'failed', reason: report.reconciledRuns![0]!.reason },
            ]);
            expect((await test.db.knex('workflow_runs').where({ id: lost.id }).first()).status).to.equal(
              'failed',
            );
            expect(await statusOf(stale.id)).to.equal('destroyed');
            expect((await readEventsAfter(test.db.knex, SYSTEM_STREAM, 0)).map((e) => e.type)).to.include(
              'cleanup_pass',
            );
          } finally {
            await handle.delete();
          }
        },
        { dependencies: context },
      );
    });
  });
}
