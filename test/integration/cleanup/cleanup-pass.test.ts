import { expect } from 'chai';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  runCleanupPass,
  SYSTEM_STREAM,
  type CleanupSettings,
} from '../../../activities/cleanup/cleanup-pass.js';
import { registerLocalPath } from '../../../activities/codebase-registration/register-local-path.js';
import { ensureWorktree } from '../../../activities/git/worktrees.js';
import { createAssistantSession } from '../../../db/repositories/assistant-sessions.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { readEventsAfter } from '../../../db/repositories/events.js';
import {
  listEnvironments,
  type IsolationEnvironment,
} from '../../../db/repositories/isolation-environments.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import type { Codebase } from '../../../db/repositories/codebases.js';
import { cleanupScheduleId, ensureCleanupSchedule } from '../../../worker/cleanup-schedule.js';
import type { ActivityDependencies } from '../../../activities/index.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { withTestWorkers } from '../../support/temporal.js';

const DAY_MS = 86_400_000;
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
    let context: ActivityDependencies;
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

    async function worktree(key: string, ageDays = 0): Promise<IsolationEnvironment> {
      const { environment } = await ensureWorktree({
        db: test.db,
        codebaseId: codebase.id,
        sourcePath: codebase.sourcePath,
        worktreesRoot: join(codebase.sourcePath, '..', 'worktrees'),
        kind: 'task',
        key,
      });
      const lastActivity = new Date(Date.now() - ageDays * DAY_MS).toISOString();
      await test.db
        .knex('isolation_environments')
        .where({ id: environment.id })
        .update({ last_activity_at: lastActivity });
      return { ...environment, lastActivityAt: lastActivity };
    }

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

    it('deletes assistant sessions inactive past the retention and records the pass in the journal', async () => {
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
      const report = await runCleanupPass(context, settings);
      expect(report.deletedSessions).to.equal(1);
      const recorded = await readEventsAfter(test.db.knex, SYSTEM_STREAM, 0);
      expect(recorded.map((e) => e.type)).to.deep.equal(['cleanup_pass']);
      expect(recorded[0]!.payload).to.include({ deletedSessions: 1 });
    });

    it('runs as a Temporal Schedule that fires the cleanupPass workflow', async () => {
      const stale = await worktree('scheduled', 40);
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
            for (let i = 0; i < 100 && (await statusOf(stale.id)) !== 'destroyed'; i += 1) {
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
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
