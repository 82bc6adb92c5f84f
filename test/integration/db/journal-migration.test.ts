import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrateToLatest, MIGRATION_NAMES } from '../../../db/migrate.js';
import { DASHBOARD_STREAM, latestEventId, readEventsAfter } from '../../../db/repositories/events.js';
import { appendRunEvent, listRunEvents } from '../../../db/repositories/run-events.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { migrationsUpTo } from '../../support/migration-steps.js';

const JOURNAL = '0003-one-row-per-event';
const BEFORE = migrationsUpTo(JOURNAL, { through: false });
const ALL = migrationsUpTo(JOURNAL, { through: true });

const at = (second: number) => new Date(Date.UTC(2026, 5, 1, 12, 0, second)).toISOString();

/** What the code before one row per event wrote for a conversation with one run of two events. */
async function seedThreeCopies(knex: Knex) {
  await knex('conversations').insert({
    id: 'c1',
    platform: 'web',
    platform_conversation_id: 'c1',
    last_activity_at: at(0),
    created_at: at(0),
    updated_at: at(0),
  });
  await knex('workflow_runs').insert({
    id: 'r1',
    workflow_name: 'assist',
    conversation_id: 'c1',
    status: 'completed',
    definition: '{}',
    created_at: at(0),
    updated_at: at(0),
  });
  await knex('workflow_run_events').insert([
    { run_id: 'r1', type: 'run_started', actor: 'ann', payload: '{}', created_at: at(1) },
    { run_id: 'r1', type: 'node_completed', node_id: 'plan', payload: '{"output":"x"}', created_at: at(2) },
  ]);
  const copy = (streamKey: string, type: string, payload: object, second: number) => ({
    stream_key: streamKey,
    type,
    payload: JSON.stringify(payload),
    created_at: at(second),
  });
  await knex('events').insert([
    copy('c1', 'text', { text: 'hello' }, 0),
    copy('c1', 'run_started', { runId: 'r1', actor: 'ann' }, 1),
    copy(DASHBOARD_STREAM, 'run_started', { runId: 'r1', actor: 'ann' }, 1),
    copy('c1', 'node_completed', { runId: 'r1', nodeId: 'plan', output: 'x' }, 2),
    copy(DASHBOARD_STREAM, 'node_completed', { runId: 'r1', nodeId: 'plan', output: 'x' }, 2),
  ]);
}

const frames = (events: Array<{ id: number; type: string; payload: object }>) =>
  events.map(({ id, type, payload }) => ({ id, type, payload }));

/** A stream as the code before one row per event read it: the rows of its key. */
async function oldStream(knex: Knex, streamKey: string) {
  const rows = (await knex('events').where('stream_key', streamKey).orderBy('id')) as Array<{
    id: number | string;
    type: string;
    payload: string;
  }>;
  return rows.map((row) => ({
    id: Number(row.id),
    type: row.type,
    payload: JSON.parse(row.payload) as object,
  }));
}

for (const kind of databaseKinds()) {
  describe(`one row per event: migration (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create({ migrate: false });
      await test.db.knex.migrate.latest(BEFORE);
    });
    afterEach(async () => {
      await test.dispose();
    });

    it('keeps every stream as it was and moves run histories into the journal, in order', async () => {
      const { knex } = test.db;
      await seedThreeCopies(knex);
      const conversationBefore = await oldStream(knex, 'c1');
      const dashboardBefore = await oldStream(knex, DASHBOARD_STREAM);
      expect(conversationBefore).to.have.length(3);
      const lastBefore = await latestEventId(knex);

      expect(await migrateToLatest(knex)).to.deep.equal(MIGRATION_NAMES.slice(2));
      expect(await knex.schema.hasTable('workflow_run_events')).to.equal(false);
      expect(frames(await readEventsAfter(knex, 'c1', 0))).to.deep.equal(conversationBefore);
      expect(frames(await readEventsAfter(knex, DASHBOARD_STREAM, 0))).to.deep.equal(dashboardBefore);

      const history = await listRunEvents(knex, 'r1');
      expect(
        history.map(({ type, nodeId, actor, payload, createdAt }) => ({
          type,
          nodeId,
          actor,
          payload,
          createdAt,
        })),
      ).to.deep.equal([
        { type: 'run_started', nodeId: null, actor: 'ann', payload: {}, createdAt: at(1) },
        { type: 'node_completed', nodeId: 'plan', actor: null, payload: { output: 'x' }, createdAt: at(2) },
      ]);
      expect(history[0]!.id).to.be.greaterThan(lastBefore);
      expect(history[1]!.id).to.be.greaterThan(history[0]!.id);

      // New run events follow on both streams, after the old ones.
      const next = await appendRunEvent(knex, { runId: 'r1', conversationId: 'c1', type: 'run_note' });
      expect((await readEventsAfter(knex, 'c1', 0)).map((e) => e.id)).to.deep.equal([
        ...conversationBefore.map((e) => e.id),
        next.id,
      ]);
      expect((await readEventsAfter(knex, DASHBOARD_STREAM, 0)).map((e) => e.id)).to.deep.equal([
        ...dashboardBefore.map((e) => e.id),
        next.id,
      ]);
    });

    it('rolls back to three copies: the history table and a copy on each stream', async () => {
      const { knex } = test.db;
      await seedThreeCopies(knex);
      await knex.migrate.latest(ALL);
      await appendRunEvent(knex, { runId: 'r1', conversationId: 'c1', type: 'run_note', nodeId: 'plan' });

      await knex.migrate.down(ALL);
      const history = (await knex('workflow_run_events').orderBy('id')) as Array<{ type: string }>;
      expect(history.map((row) => row.type)).to.deep.equal(['run_started', 'node_completed', 'run_note']);
      const streamed = (await knex('events').orderBy('id')) as Array<{ stream_key: string; payload: string }>;
      const note = JSON.stringify({ runId: 'r1', nodeId: 'plan' });
      expect(streamed.slice(-2).map((row) => [row.stream_key, row.payload])).to.deep.equal([
        ['c1', note],
        [DASHBOARD_STREAM, note],
      ]);
      expect(streamed).to.have.length(7);
      expect(await knex.schema.hasColumn('events', 'run_id')).to.equal(false);
    });
  });
}
