import { expect } from 'chai';
import * as codebases from '../../../db/repositories/codebases.js';
import * as conversations from '../../../db/repositories/conversations.js';
import { countRunsByStatus } from '../../../db/repositories/run-dashboard.js';
import { countTurnsAndRuns } from '../../../db/repositories/service-figures.js';
import { readMetricFigures } from '../../../db/repositories/metric-figures.js';
import * as runs from '../../../db/repositories/workflow-runs.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';

const definition = { name: 'assist', nodes: [] };

for (const kind of databaseKinds()) {
  describe(`hot reads and maintained counts (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(async () => {
      await test.dispose();
    });

    it('keeps the runs per status exact through inserts, transitions and deletes', async () => {
      const { knex, reader } = test.db;
      const created: runs.WorkflowRun[] = [];
      for (let index = 0; index < 5; index += 1)
        created.push(await runs.createRun(knex, { workflowName: 'assist', definition }));
      await runs.transitionRun(knex, created[0]!.id, ['pending'], 'running');
      await runs.transitionRun(knex, created[1]!.id, ['pending'], 'running');
      await runs.transitionRun(knex, created[1]!.id, ['running'], 'completed');
      // A refused transition and a same-status update change nothing.
      await runs.transitionRun(knex, created[2]!.id, ['paused'], 'running');
      await knex('workflow_runs').where('id', created[3]!.id).update({ status: 'pending' });
      expect(await runs.deleteRunIn(knex, created[4]!.id, ['pending'])).to.equal(true);

      const maintained = await countRunsByStatus(reader, {});
      expect(maintained).to.include({ pending: 2, running: 1, completed: 1, failed: 0 });
      // The same figures as counting the rows, which a filter forces.
      expect(await countRunsByStatus(reader, { since: '2000-01-01T00:00:00.000Z' })).to.deep.equal(
        maintained,
      );
      expect(await runs.countRunsWithStatus(reader, 'running')).to.equal(1);
      expect(await countTurnsAndRuns(reader)).to.deep.equal({ active: 0, queued: 0, runningWorkflows: 1 });
      // Inside a transaction, the transaction's own change counts; the reader sees it on commit.
      await knex.transaction(async (trx) => {
        await runs.transitionRun(trx, created[0]!.id, ['running'], 'failed');
        expect(await runs.countRunsWithStatus(trx, 'failed')).to.equal(1);
      });
      expect(await runs.countRunsWithStatus(reader, 'failed')).to.equal(1);
      expect(await runs.countRunsWithStatus(reader, 'running')).to.equal(0);
    });

    it('keeps the runs per workflow and status exact, for the metrics and the workflow filter', async () => {
      const { knex, reader } = test.db;
      const made: runs.WorkflowRun[] = [];
      for (const workflowName of ['assist', 'assist', 'assist', 'review', 'review'])
        made.push(await runs.createRun(knex, { workflowName, definition }));
      await runs.transitionRun(knex, made[0]!.id, ['pending'], 'running');
      await runs.transitionRun(knex, made[0]!.id, ['running'], 'completed');
      await runs.transitionRun(knex, made[3]!.id, ['pending'], 'running');
      await knex('workflow_runs').where('id', made[1]!.id).update({ status: 'pending' });
      expect(await runs.deleteRunIn(knex, made[4]!.id, ['pending'])).to.equal(true);

      const counted = await knex('workflow_runs')
        .select('status', 'workflow_name as workflow')
        .count('* as count')
        .groupBy('status', 'workflow_name');
      const expected = counted
        .map((row) => ({ status: row.status, workflow: row.workflow, count: Number(row.count) }))
        .sort((a, b) => `${a.workflow} ${a.status}`.localeCompare(`${b.workflow} ${b.status}`));
      expect(expected).to.deep.equal([
        { status: 'completed', workflow: 'assist', count: 1 },
        { status: 'pending', workflow: 'assist', count: 2 },
        { status: 'running', workflow: 'review', count: 1 },
      ]);
      // The deleted run's row stays at 0 and is left out, as a count over the runs would.
      expect((await readMetricFigures(reader)).runs).to.deep.equal(expected);
      const review = await countRunsByStatus(reader, { workflowName: 'review' });
      expect(review).to.include({ pending: 0, running: 1, completed: 0 });
      // The same figures as counting the rows, which a second filter forces.
      expect(
        await countRunsByStatus(reader, { workflowName: 'review', since: '2000-01-01T00:00:00.000Z' }),
      ).to.deep.equal(review);
      expect(await countRunsByStatus(reader, { workflowName: 'nothing' })).to.include({ pending: 0 });
    });

    it('reads through the reader what was just written through knex, and pages by keyset', async () => {
      const { knex, reader } = test.db;
      const made: conversations.Conversation[] = [];
      for (let index = 0; index < 3; index += 1)
        made.push(await conversations.createConversation(knex, { platform: 'web' }));
      await conversations.renameConversation(knex, made[1]!.id, 'renamed');
      expect(
        (await conversations.findConversationByRef(reader, made[1]!.platformConversationId))?.title,
      ).to.equal('renamed');
      const firstPage = await conversations.listConversations(reader, { limit: 2 });
      const rest = await conversations.listConversations(reader, {
        limit: 2,
        after: { lastActivityAt: firstPage[1]!.lastActivityAt, id: firstPage[1]!.id },
      });
      expect([...firstPage, ...rest].map((c) => c.id).sort()).to.deep.equal(made.map((c) => c.id).sort());

      const codebase = await codebases.createCodebase(knex, {
        name: 'r',
        repositoryKey: 'k',
        sourcePath: '/s',
      });
      expect((await codebases.findCodebaseAtPath(reader, '/s'))?.id).to.equal(codebase.id);
      expect(await codebases.findCodebaseAtPath(reader, '/elsewhere')).to.equal(undefined);
      // A later codebase checked out at the same path does not take the older one's place.
      const later = await codebases.createCodebase(knex, {
        name: 'r2',
        repositoryKey: 'k2',
        sourcePath: '/t',
        localPath: '/s',
      });
      // Created in the same millisecond, the id would decide: make the order certain.
      await knex('codebases').where({ id: later.id }).update({ created_at: '2999-01-01T00:00:00.000Z' });
      expect((await codebases.findCodebaseAtPath(reader, '/s'))?.id).to.equal(codebase.id);
      expect((await codebases.findCodebaseAtPath(reader, '/t'))?.id).to.equal(later.id);
    });

    it('answers many concurrent reads each with its own rows; a failing one fails alone', async () => {
      const { knex, reader } = test.db;
      const made: conversations.Conversation[] = [];
      for (let index = 0; index < 20; index += 1)
        made.push(await conversations.createConversation(knex, { platform: 'web', title: `c${index}` }));
      // Issued in one turn of the event loop: on Postgres they share the pipelined connections'
      // writes, the bad one among them.
      const reads = made.map((conversation) =>
        conversations.findConversationByRef(reader, conversation.platformConversationId),
      );
      const bad = reader.all('select * from no_such_table').then(
        () => 'answered',
        (error: unknown) => String(error),
      );
      const more = made.map((conversation) =>
        reader.first<{ id: string }>('select id from conversations where id = ?', [conversation.id]),
      );
      expect((await Promise.all(reads)).map((found) => found?.title)).to.deep.equal(made.map((c) => c.title));
      expect(await bad).to.match(/no_such_table/);
      expect((await Promise.all(more)).map((row) => row?.id)).to.deep.equal(made.map((c) => c.id));
    });

    if (kind.name === 'postgres')
      it('does not hold a read up behind a slow one: it goes to another connection', async () => {
        const { reader } = test.db;
        const order: string[] = [];
        const slow = reader.all('select pg_sleep(1.5)').then(() => order.push('slow'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const quick = reader.all('select 1 as one').then(() => order.push('quick'));
        await Promise.all([slow, quick]);
        expect(order).to.deep.equal(['quick', 'slow']);
      });

    if (kind.name === 'postgres')
      it('replaces a read connection the server closed, and refuses reads once closed', async () => {
        const { knex, reader } = test.db;
        const made = await conversations.createConversation(knex, { platform: 'web', title: 'kept' });
        const read = () => conversations.findConversationByRef(reader, made.platformConversationId);
        await Promise.all([read(), read(), read()]);
        const killed = await knex.raw(
          "select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = 'cairn-reads' and datname = current_database()",
        );
        expect(killed.rows.length).to.be.greaterThan(0);
        // The reads that meet the closed connection may fail; a read after them is answered.
        let answered: conversations.Conversation | undefined;
        for (let attempt = 0; attempt < 20 && !answered; attempt++)
          answered = await read().catch(async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            return undefined;
          });
        expect(answered?.title).to.equal('kept');
        await reader.close();
        let refusal: unknown;
        await read().catch((error: unknown) => (refusal = error));
        expect(String(refusal)).to.match(/closed/);
      });

    if (kind.name === 'postgres')
      it('prepares each read once per connection, and reads its times as ISO text', async () => {
        const { knex, reader } = test.db;
        const made = await conversations.createConversation(knex, { platform: 'web', title: 'named' });
        const found = await conversations.findConversationByRef(reader, made.platformConversationId);
        expect(found?.createdAt)
          .to.equal(made.createdAt)
          .and.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        await conversations.findConversationByRef(reader, made.platformConversationId);
        // Asked on the read connection itself (one serves while it keeps up).
        const prepared = await reader.all<{ name: string; statement: string }>(
          'select name, statement from pg_prepared_statements order by name',
        );
        const byConversation = prepared.filter((row) => /from "?conversations"?/i.test(row.statement));
        expect(byConversation).to.have.length(1);
        expect(byConversation[0]!.name).to.match(/^cairn_read_\d+$/);
        const at = await reader.first<{ at: unknown }>(
          "select timestamptz '2026-01-02 03:04:05.678+00' as at",
        );
        expect(at?.at).to.equal('2026-01-02T03:04:05.678Z');
      });

    it('refuses bad SQL with the database error, not a crash', async () => {
      let failure: unknown;
      await test.db.reader.all('select * from no_such_table').catch((error: unknown) => (failure = error));
      expect(String(failure)).to.match(/no_such_table/);
    });
  });
}
