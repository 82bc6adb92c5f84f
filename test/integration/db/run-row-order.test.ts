import { expect } from 'chai';
import type { Knex } from 'knex';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RUN_COLUMNS_LAST } from '../../../db/migrations/0018-run-row-order.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import { PACKAGE_ROOT } from '../../../config/package-root.js';
import { databaseKinds, type DatabaseKind } from '../../support/databases.js';
import { migrationsUpTo } from '../../support/migration-steps.js';

const sqlite = databaseKinds().find((kind) => kind.name === 'sqlite') as DatabaseKind;
const REBUILD = '0018-run-row-order';

// A real workflow's definition, as a run stores it: 9 KB of YAML, a few KB of JSON.
const REVIEW_PR = parse(
  readFileSync(join(PACKAGE_ROOT, 'defaults/workflows/review-pr.yaml'), 'utf8'),
) as Record<string, unknown>;

const columnsOf = async (knex: Knex) =>
  ((await knex.raw('pragma table_info(workflow_runs)')) as { name: string }[]).map((column) => column.name);

/** The table's indexes and triggers as SQLite keeps their SQL, by name. */
const dependentsOf = async (knex: Knex) =>
  (await knex.raw(
    "select type, name, sql from sqlite_master where tbl_name = 'workflow_runs' and type <> 'table' order by name",
  )) as { type: string; name: string; sql: string | null }[];

const statusCounts = async (knex: Knex) =>
  Object.fromEntries(
    ((await knex('run_status_counts').select('status', 'count')) as { status: string; count: number }[]).map(
      (row) => [row.status, Number(row.count)],
    ),
  );

describe('migration 0018: a run row keeps its definition last (sqlite)', () => {
  it('rebuilds workflow_runs with every row, index, trigger and foreign key as they were', async () => {
    const test = await sqlite.create({ migrate: false });
    try {
      const { knex } = test.db;
      await knex.migrate.latest(migrationsUpTo(REBUILD, { through: false }));
      expect((await columnsOf(knex)).at(-1), 'the order before').to.not.equal('definition');
      const conversation = await createConversation(knex, { platform: 'web', platformConversationId: 'c-1' });
      const long = await createRun(knex, {
        workflowName: 'review-pr',
        definition: REVIEW_PR,
        message: 'review it, please',
        inputs: { pr: '12' },
        conversationId: conversation.id,
      });
      await transitionRun(knex, long.id, ['pending'], 'running');
      await createRun(knex, { workflowName: 'assist', definition: { nodes: [{ id: 'a', bash: 'true' }] } });
      const rows = await knex('workflow_runs').orderBy('id');
      const dependents = await dependentsOf(knex);
      const counts = await statusCounts(knex);
      const foreignKeys = await knex.raw('pragma foreign_key_list(workflow_runs)');

      const [, applied] = (await knex.migrate.latest(migrationsUpTo(REBUILD, { through: true }))) as [
        number,
        string[],
      ];
      expect(applied).to.deep.equal([REBUILD]);

      const columns = await columnsOf(knex);
      expect(columns.slice(-RUN_COLUMNS_LAST.length)).to.deep.equal([...RUN_COLUMNS_LAST]);
      expect(columns).to.have.members(Object.keys(rows[0] as object));
      expect(await knex('workflow_runs').orderBy('id')).to.deep.equal(rows);
      expect(await dependentsOf(knex)).to.deep.equal(dependents);
      expect(await knex.raw('pragma foreign_key_list(workflow_runs)')).to.deep.equal(foreignKeys);
      expect(await statusCounts(knex)).to.deep.equal(counts);

      // The triggers are back: counts follow inserts and transitions, the node count is written.
      const another = await createRun(knex, { workflowName: 'review-pr', definition: REVIEW_PR });
      await transitionRun(knex, long.id, ['running'], 'failed', { error: 'a long error' });
      expect(await statusCounts(knex)).to.include({
        pending: (counts.pending ?? 0) + 1,
        running: 0,
        failed: 1,
      });
      const nodes = (REVIEW_PR.nodes as unknown[]).length;
      expect(await knex('workflow_runs').where('id', another.id).first('node_count')).to.deep.equal({
        node_count: nodes,
      });
      // And the foreign keys act: a conversation's delete unlinks its runs.
      await knex('conversations').where('id', conversation.id).delete();
      expect(await knex('workflow_runs').where('id', long.id).first('conversation_id')).to.deep.equal({
        conversation_id: null,
      });
      expect((await knex.raw('pragma integrity_check')) as unknown[]).to.deep.equal([
        { integrity_check: 'ok' },
      ]);
    } finally {
      await test.dispose();
    }
  });

  it('leaves the definition last in a fully migrated database (rebuild after adding a column)', async () => {
    const test = await sqlite.create();
    try {
      const columns = await columnsOf(test.db.knex);
      expect(
        columns.slice(-RUN_COLUMNS_LAST.length),
        'a migration added a column to workflow_runs after its definition: call rebuildRunTable ' +
          '(db/migrations/0018-run-row-order.ts) after it, or every list of runs reads overflow pages',
      ).to.deep.equal([...RUN_COLUMNS_LAST]);
    } finally {
      await test.dispose();
    }
  });
});
