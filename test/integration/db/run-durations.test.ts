import { expect } from 'chai';
import type { Knex } from 'knex';
import { createRun, findRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import { databaseKinds } from '../../support/databases.js';
import { migrationsUpTo } from '../../support/migration-steps.js';

const DURATIONS = '0019-run-durations';
const definition = { name: 'w', nodes: [{ id: 'a', bash: 'true' }] };

const storedDuration = async (knex: Knex, id: string) =>
  ((await knex('workflow_runs').where('id', id).first('duration_ms')) as { duration_ms: unknown })
    .duration_ms;

/** What the duration of a run read back is, in whole milliseconds, or null. */
async function expectedDuration(knex: Knex, id: string): Promise<number | null> {
  const run = (await findRun(knex, id))!;
  if (!run.startedAt || !run.completedAt) return null;
  return Date.parse(run.completedAt) - Date.parse(run.startedAt);
}

for (const kind of databaseKinds()) {
  describe(`migration 0019: an ended run's duration kept by triggers (${kind.name})`, () => {
    it("fills in the runs that ended before it, then follows every write of a run's start and end", async () => {
      const test = await kind.create({ migrate: false });
      try {
        const { knex } = test.db;
        await knex.migrate.latest(migrationsUpTo(DURATIONS, { through: false }));
        const ended = await createRun(knex, { workflowName: 'w', definition });
        await knex('workflow_runs').where('id', ended.id).update({
          status: 'completed',
          started_at: '2026-03-01T10:00:00.250Z',
          completed_at: '2026-03-01T10:02:03.999Z',
        });
        const running = await createRun(knex, { workflowName: 'w', definition });
        await transitionRun(knex, running.id, ['pending'], 'running');
        const pending = await createRun(knex, { workflowName: 'w', definition });

        const [, applied] = (await knex.migrate.latest(migrationsUpTo(DURATIONS, { through: true }))) as [
          number,
          string[],
        ];
        expect(applied).to.deep.equal([DURATIONS]);

        expect(Number(await storedDuration(knex, ended.id))).to.equal(123_749);
        expect(await storedDuration(knex, running.id)).to.equal(null);
        expect(await storedDuration(knex, pending.id)).to.equal(null);

        // The end of a run, through the repository as the workflows write it.
        await transitionRun(knex, running.id, ['running'], 'failed', { error: 'exit 1' });
        const measured = await expectedDuration(knex, running.id);
        expect(measured).to.be.a('number');
        expect(Number(await storedDuration(knex, running.id))).to.equal(measured);
        // A run written already ended (an import, a hand-made row), and a start rewritten later.
        const imported = await createRun(knex, { workflowName: 'w', definition });
        await knex('workflow_runs')
          .where('id', imported.id)
          .update({ started_at: '2026-03-01T09:00:00.000Z', completed_at: '2026-03-01T10:00:00.001Z' });
        expect(Number(await storedDuration(knex, imported.id))).to.equal(3_600_001);
        await knex('workflow_runs')
          .where('id', imported.id)
          .update({ started_at: '2026-03-01T09:59:59.000Z' });
        expect(Number(await storedDuration(knex, imported.id))).to.equal(1_001);
        // Other writes leave it alone; a start without an end has none.
        await knex('workflow_runs').where('id', imported.id).update({ current_node: 'a', total_tokens: 5 });
        expect(Number(await storedDuration(knex, imported.id))).to.equal(1_001);
        await knex('workflow_runs').where('id', imported.id).update({ completed_at: null });
        expect(await storedDuration(knex, imported.id)).to.equal(null);
      } finally {
        await test.dispose();
      }
    });
  });
}
