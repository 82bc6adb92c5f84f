import { expect } from 'chai';
import { conversationJsonColumns } from '../../../api/core/conversations/conversation-schemas.js';
import {
  runDetailJsonColumns,
  runEventView,
  runJsonColumns,
  runView,
} from '../../../api/core/runs/run-view.js';
import { jsonObjectSql, jsonRows, leadingString } from '../../../db/json-projection.js';
import * as codebases from '../../../db/repositories/codebases.js';
import * as conversations from '../../../db/repositories/conversations.js';
import { countRunsByStatus, mayBeRunning, searchRunsAsJson } from '../../../db/repositories/run-dashboard.js';
import { findRunDetailAsJson } from '../../../db/repositories/run-detail.js';
import { appendRunEvent, listRunEvents } from '../../../db/repositories/run-events.js';
import * as runs from '../../../db/repositories/workflow-runs.js';
import type { SqlReader } from '../../../db/sql-reader.js';
import { conversationWire } from '../../../domain/conversations/wire.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';

// The lists the database writes as JSON must say exactly what the views of the same rows say,
// field by field and in the same order: the text is compared after one parse, so a field the SQL
// adds, drops, reorders, renames or writes in another form (a time, a number, a flag) fails here.
const sameText = (json: string, value: unknown) =>
  expect(JSON.stringify(JSON.parse(json))).to.equal(JSON.stringify(value));

for (const kind of databaseKinds()) {
  describe(`lists written as JSON by the database (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(async () => {
      await test.dispose();
    });

    async function someRuns() {
      const { knex } = test.db;
      const codebase = await codebases.createCodebase(knex, {
        name: 'shop "front"',
        repositoryKey: 'k',
        sourcePath: '/s',
      });
      const conversation = await conversations.createConversation(knex, { platform: 'web', title: 'talk' });
      const plain = await runs.createRun(knex, {
        workflowName: 'assist',
        definition: { name: 'assist', nodes: [] },
      });
      const busy = await runs.createRun(knex, {
        workflowName: 'fix-issue',
        definition: { name: 'fix-issue', nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
        message: 'Fix the “checkout” bug\nplease',
        conversationId: conversation.id,
        codebaseId: codebase.id,
      });
      const odd = await runs.createRun(knex, {
        workflowName: 'odd',
        definition: { name: 'odd', nodes: 'not a list' },
        codebaseId: codebase.id,
      });
      await knex('workflow_runs').where('id', busy.id).update({
        status: 'failed',
        current_node: 'b',
        error: 'exit 1: "quoted" \\ back',
        total_tokens: 123456,
        total_cost_usd: 0.123456,
        started_at: '2026-03-01T10:00:00.250Z',
        completed_at: '2026-03-01T10:02:03.999Z',
      });
      await knex('workflow_runs')
        .where('id', odd.id)
        .update({ status: 'running', started_at: '2026-03-01T09:00:00.000Z' });
      for (const [type, nodeId] of [
        ['node_completed', 'a'],
        ['node_completed', 'a'],
        ['node_failed', 'b'],
        ['node_started', 'c'],
        ['node_skipped', null],
      ] as const)
        await appendRunEvent(knex, { runId: busy.id, conversationId: conversation.id, type, nodeId });
      return { codebase, plain, busy, odd };
    }

    it('writes conversations as conversationWire does', async () => {
      const { knex, reader } = test.db;
      const codebase = await codebases.createCodebase(knex, {
        name: 'r',
        repositoryKey: 'k',
        sourcePath: '/s',
      });
      await conversations.createConversation(knex, { platform: 'web' });
      await conversations.createConversation(knex, {
        platform: 'telegram',
        platformConversationId: '42',
        title: 'a “quoted” title',
        codebaseId: codebase.id,
      });
      const gone = await conversations.createConversation(knex, { platform: 'web', title: 'gone' });
      await conversations.softDeleteConversation(knex, gone.id);
      const filter = { includeDeleted: true, limit: 10 };
      const written = await conversations.listConversationsAsJson(reader, filter, conversationJsonColumns);
      const read = await conversations.listConversations(reader, filter);
      expect(written).to.have.length(3);
      written.forEach((row, index) => {
        sameText(row.json, conversationWire(read[index]!));
        expect(row.position()).to.deep.equal({
          lastActivityAt: read[index]!.lastActivityAt,
          id: read[index]!.id,
        });
      });
      expect(written.some((row) => JSON.parse(row.json).deleted === true)).to.equal(true);
    });

    it('writes runs as runView does', async () => {
      await someRuns();
      const { reader } = test.db;
      const written = await runs.listRunsAsJson(reader, { limit: 10 }, runJsonColumns);
      const read = await runs.listRuns(reader, { limit: 10 });
      expect(written).to.have.length(3);
      written.forEach((row, index) => {
        sameText(row.json, runView(read[index]!));
        expect(row.position()).to.deep.equal({ createdAt: read[index]!.createdAt, id: read[index]!.id });
        // The id is the projection's first field: read from the text's start, as the dialect wrote it.
        expect(leadingString(row.json, 'runId')).to.equal(read[index]!.id);
        expect(row.positionKey('id')).to.equal(read[index]!.id);
        expect(row.positionKey('createdAt')).to.equal(read[index]!.createdAt);
      });
    });

    it("writes the dashboard's fields as counted from the events and the definition", async () => {
      const { codebase, busy, odd, plain } = await someRuns();
      const { reader } = test.db;
      const now = '2026-03-01T10:00:30.000Z';
      const { rows: written } = await searchRunsAsJson(reader, { limit: 10 }, runJsonColumns, now, {});
      const byId = new Map(
        written.map((row) => [row.position().id, JSON.parse(row.json) as Record<string, unknown>]),
      );
      const busyEvents = await listRunEvents(reader, busy.id);
      const endedNodes = new Set(
        busyEvents
          .filter((event) => event.type !== 'node_started' && event.nodeId)
          .map((event) => event.nodeId),
      );
      expect(byId.get(busy.id)).to.deep.include({
        codebaseName: codebase.name,
        nodesDone: endedNodes.size,
        nodesTotal: 3,
        durationMs: 123_749,
      });
      // Ended: the duration migration 0019's triggers stored, not one computed by the query.
      const stored = await test.db.knex('workflow_runs').where('id', busy.id).first('duration_ms');
      expect(Number(stored.duration_ms)).to.equal(123_749);
      // Running: measured to now; never started: no duration; a nodes field that is no list: none.
      expect(byId.get(odd.id)).to.deep.include({ nodesDone: 0, nodesTotal: 0, durationMs: 3_630_000 });
      expect(byId.get(plain.id)).to.deep.include({ codebaseName: null, nodesTotal: 0, durationMs: null });
      // The latest event's time, written as the events' own createdAt; none without events.
      expect(byId.get(busy.id)!.lastEventAt).to.equal(busyEvents.at(-1)!.createdAt);
      expect(byId.get(plain.id)!.lastEventAt).to.equal(null);
      for (const row of written) {
        const { codebaseName, nodesDone, nodesTotal, durationMs, lastEventAt, ...own } = JSON.parse(row.json);
        void [codebaseName, nodesDone, nodesTotal, durationMs, lastEventAt];
        sameText(JSON.stringify(own), runView((await runs.findRun(reader, row.position().id))!));
      }
      // The search applies to the written list as to the read one.
      const found = await searchRunsAsJson(reader, { limit: 10, search: 'FRONT' }, runJsonColumns, now, {
        search: 'FRONT',
      });
      expect(found.rows.map((row) => row.position().id).sort()).to.deep.equal([busy.id, odd.id].sort());
    });

    it('carries the counts per status in the page statement, and counts an empty page on its own', async () => {
      const { codebase } = await someRuns();
      const { reader } = test.db;
      const now = '2026-03-01T10:00:30.000Z';
      for (const countFilter of [
        {},
        { workflowName: 'odd' },
        { codebaseId: codebase.id },
        { search: 'fix' },
      ]) {
        const page = await searchRunsAsJson(reader, { limit: 10 }, runJsonColumns, now, countFilter);
        expect(page.rows).to.have.length(3);
        expect(page.counts, JSON.stringify(countFilter)).to.deep.equal(
          await countRunsByStatus(reader, countFilter),
        );
      }
      expect(await countRunsByStatus(reader, {})).to.deep.include({ pending: 1, failed: 1, running: 1 });
      // The page filters by status, the counts do not: an empty page still has them.
      const empty = await searchRunsAsJson(
        reader,
        { limit: 10, statuses: ['cancelled'] },
        runJsonColumns,
        now,
        {},
      );
      expect(empty.rows).to.deep.equal([]);
      expect(empty.counts).to.deep.include({ pending: 1, failed: 1, running: 1, cancelled: 0 });
    });

    it("keeps each run's node count as its definition is written, by any writer", async () => {
      const { knex, reader } = test.db;
      const run = await runs.createRun(knex, {
        workflowName: 'grow',
        definition: { name: 'grow', nodes: [{ id: 'a' }] },
      });
      const nodesTotal = async () => {
        const {
          rows: [row],
        } = await searchRunsAsJson(reader, { limit: 1 }, runJsonColumns, '2026-03-01T00:00:00.000Z', {});
        return JSON.parse(row!.json).nodesTotal as number;
      };
      expect(await nodesTotal()).to.equal(1);
      // Written by hand, in SQL: the count follows, and text that is not JSON counts none
      // instead of failing the write.
      await knex('workflow_runs')
        .where('id', run.id)
        .update({ definition: JSON.stringify({ nodes: [{ id: 'a' }, { id: 'b' }] }) });
      expect(await nodesTotal()).to.equal(2);
      await knex('workflow_runs').where('id', run.id).update({ definition: 'not json {' });
      expect(await nodesTotal()).to.equal(0);
      const [copy] = await knex('workflow_runs').where('id', run.id).select('*');
      await knex('workflow_runs').insert({ ...copy, id: 'hand-made', definition: '{"nodes":[1,2,3]}' });
      expect((await knex('workflow_runs').where('id', 'hand-made').first()).node_count).to.equal(3);
    });

    if (kind.name === 'sqlite')
      it("counts a page's ended nodes from migration 0017's index alone", async () => {
        await someRuns();
        const { reader } = test.db;
        // The dashboard's own statement, as it reaches the database, then its plan.
        const statements: { sql: string; params: readonly unknown[] }[] = [];
        const recording: SqlReader = {
          dialect: reader.dialect,
          all: async <Row>(sql: string, params: readonly unknown[] = []) => {
            statements.push({ sql, params });
            return reader.all<Row>(sql, params);
          },
          first: async <Row>(sql: string, params?: readonly unknown[]) => reader.first<Row>(sql, params),
          close: async () => {},
        };
        await searchRunsAsJson(recording, { limit: 10 }, runJsonColumns, '2026-03-01T00:00:00.000Z', {});
        const [{ sql, params }] = statements as [{ sql: string; params: readonly unknown[] }];
        const plan = await reader.all<{ detail: string }>(`explain query plan ${sql}`, params);
        const details = plan.map((step) => step.detail);
        expect(details).to.include('SEARCH events USING COVERING INDEX events_ended_nodes_index (run_id=?)');
        expect(details.join('\n')).not.to.match(/TEMP B-TREE FOR count\(DISTINCT\)/);
      });

    it('tells a running run from its JSON text, as either dialect writes it', () => {
      expect(mayBeRunning('{"runId":"a","workflowName":"w","status":"running"}')).to.equal(true);
      expect(mayBeRunning('{"runId" : "a", "status" : "running"}')).to.equal(true);
      expect(
        mayBeRunning('{"runId":"a","status":"completed","message":"\\"status\\":\\"running\\""}'),
      ).to.equal(false);
    });

    it('writes a run, its events and its children in one statement as the views do', async () => {
      const { busy, plain } = await someRuns();
      const { knex, reader } = test.db;
      await appendRunEvent(knex, {
        runId: busy.id,
        type: 'node_output',
        nodeId: 'b',
        actor: 'alice@example',
        payload: { lines: ['ä “quoted”', 'two'], nested: { n: 1.5, ok: true, none: null } },
      });
      for (const nodeId of ['b', null, 'a'])
        await runs.createRun(knex, {
          workflowName: `child-${nodeId}`,
          definition: { name: 'child', nodes: [] },
          parentRunId: busy.id,
          parentNodeId: nodeId,
        });
      // Oldest first, as the run detail read them before it was one statement.
      const children = await runs.listChildRuns(reader, busy.id);
      expect(children).to.have.length(3);
      const detail = (await findRunDetailAsJson(reader, busy.id, runDetailJsonColumns))!;
      sameText(detail.run, runView((await runs.findRun(reader, busy.id))!));
      sameText(detail.events, (await listRunEvents(reader, busy.id)).map(runEventView));
      expect(JSON.parse(detail.events)).to.have.length(6);
      sameText(
        detail.children,
        children.map((child) => ({
          runId: child.id,
          workflowName: child.workflowName,
          status: child.status,
          nodeId: child.parentNodeId,
        })),
      );
      // A run without events or children: empty arrays, not nulls.
      const alone = (await findRunDetailAsJson(reader, plain.id, runDetailJsonColumns))!;
      expect([alone.events, alone.children]).to.deep.equal(['[]', '[]']);
      expect(await findRunDetailAsJson(reader, 'no-such-run', runDetailJsonColumns)).to.equal(undefined);
    });

    it('reads a leading field from the text only when it is a plain string, else leaves it to the parse', () => {
      expect(leadingString('{"runId":"r-1","x":1}', 'runId')).to.equal('r-1');
      expect(leadingString('{"runId" : "r-1", "x" : 1}', 'runId')).to.equal('r-1');
      for (const other of [
        '{"x":"r-1"}',
        '{"runId":1}',
        '{"runId":"a\\"b"}',
        '{"runIds":"r"}',
        '{"runId":"open',
      ])
        expect(leadingString(other, 'runId'), other).to.equal(undefined);
      const rows = jsonRows<{ id: string }>({ runId: ['id'] }, { id: 'id' })(['{"runId":"a\\"b"}']);
      expect(rows[0]!.positionKey('id')).to.equal('a"b');
    });

    it('refuses a position whose column the projection does not write', () => {
      expect(() => jsonRows({ id: ['id'] }, { createdAt: 'created_at' })).to.throw(
        /no field from the column created_at/,
      );
    });

    it('refuses a field or column that is not a plain name', () => {
      expect(() => jsonObjectSql(kind.name, { "a'b": ['id'] })).to.throw(/not a field name/);
      expect(() => jsonObjectSql(kind.name, { a: ['id; drop table runs'] })).to.throw(/not a column name/);
    });
  });
}
