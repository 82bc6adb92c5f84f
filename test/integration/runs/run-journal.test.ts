import { expect } from 'chai';
import { createConversation } from '../../../db/repositories/conversations.js';
import { DASHBOARD_STREAM, readEventsAfter } from '../../../db/repositories/events.js';
import { listRunEvents } from '../../../db/repositories/run-events.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import { deleteConversation } from '../../../services/conversations/conversations.js';
import type { ServiceContext } from '../../../services/context.js';
import { recordRunEvent } from '../../../services/runs/run-journal.js';
import { recordNode } from '../../../services/runs/run-state.js';
import { deleteRun } from '../../../services/runs/run-operations.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempHome } from '../../support/temp-dirs.js';

for (const kind of databaseKinds()) {
  describe(`run journal (${kind.name})`, () => {
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

    /** A run of a conversation with two events, ended so that it may be deleted. */
    async function endedRun(conversationId: string | null) {
      const { knex } = test.db;
      const run = await createRun(knex, {
        workflowName: 'assist',
        definition: { nodes: [] },
        conversationId,
      });
      await recordRunEvent(knex, { runId: run.id, conversationId, type: 'run_started', actor: 'ann' });
      await recordRunEvent(knex, {
        runId: run.id,
        conversationId,
        type: 'node_completed',
        nodeId: 'plan',
        payload: { output: 'done' },
      });
      await transitionRun(knex, run.id, ['pending'], 'completed');
      return run;
    }

    const eventsTable = () => test.db.knex('events');

    it('writes one row per run event, read by the run, its conversation and the dashboard', async () => {
      const conversation = await createConversation(test.db.knex, { platform: 'web' });
      const run = await endedRun(conversation.id);
      expect(await eventsTable().where('run_id', run.id).select('id')).to.have.length(2);

      const events = await listRunEvents(context.db.reader, run.id);
      expect(
        events.map(({ type, nodeId, actor, payload }) => ({ type, nodeId, actor, payload })),
      ).to.deep.equal([
        { type: 'run_started', nodeId: null, actor: 'ann', payload: {} },
        { type: 'node_completed', nodeId: 'plan', actor: null, payload: { output: 'done' } },
      ]);
      const expectedFrames = [
        { id: events[0]!.id, type: 'run_started', payload: { runId: run.id, actor: 'ann' } },
        {
          id: events[1]!.id,
          type: 'node_completed',
          payload: { runId: run.id, nodeId: 'plan', output: 'done' },
        },
      ];
      for (const stream of [conversation.id, DASHBOARD_STREAM]) {
        const read = await readEventsAfter(test.db.knex, stream, 0);
        expect(
          read.map(({ id, type, payload }) => ({ id, type, payload })),
          stream,
        ).to.deep.equal(expectedFrames);
      }
    });

    it('deletes a run with its events; a soft-deleted conversation keeps its events', async () => {
      const conversation = await createConversation(test.db.knex, { platform: 'web' });
      const deleted = await endedRun(conversation.id);
      const kept = await endedRun(conversation.id);

      await deleteRun(context, deleted.id);
      expect(await eventsTable().where('run_id', deleted.id)).to.deep.equal([]);
      const remaining = (await readEventsAfter(test.db.knex, DASHBOARD_STREAM, 0)).map(
        (e) => e.payload.runId,
      );
      expect(remaining).to.deep.equal([kept.id, kept.id]);

      const before = await readEventsAfter(test.db.knex, conversation.id, 0);
      await deleteConversation(context, conversation.id);
      const after = await readEventsAfter(test.db.knex, conversation.id, 0);
      expect(after.slice(0, before.length)).to.deep.equal(before);
      expect(after.map((e) => e.type).slice(before.length)).to.deep.equal(['conversation_deleted']);
      expect(await listRunEvents(context.db.reader, kept.id)).to.have.length(2);
    });

    it('keeps the events when the run may not be deleted', async () => {
      const run = await createRun(test.db.knex, { workflowName: 'assist', definition: { nodes: [] } });
      await recordRunEvent(test.db.knex, { runId: run.id, conversationId: null, type: 'run_started' });
      let refused: unknown;
      await deleteRun(context, run.id).catch((error: unknown) => (refused = error));
      expect(refused).to.have.property('kind', 'conflict');
      expect((await listRunEvents(context.db.reader, run.id)).map((e) => e.type)).to.deep.equal([
        'run_started',
      ]);
      expect((await readEventsAfter(test.db.knex, DASHBOARD_STREAM, 0)).map((e) => e.type)).to.deep.equal([
        'run_started',
      ]);
    });

    it("records a node's usage-limit wait once when its local activity runs again after a worker died", async () => {
      const { knex } = test.db;
      const run = await createRun(knex, { workflowName: 'assist', definition: { nodes: [] } });
      const wait = {
        runId: run.id,
        conversationId: null,
        nodeId: 'ask',
        type: 'node_waiting' as const,
        payload: { reason: 'usage_limit', until: '2026-11-27T12:00:00.000Z' },
      };
      await recordNode(context, wait);
      await recordNode(context, wait);
      // A later wait of the same node (another reset time) is a wait of its own.
      await recordNode(context, { ...wait, payload: { ...wait.payload, until: '2026-11-27T13:00:00.000Z' } });
      const events = await listRunEvents(knex, run.id);
      expect(events.map((event) => [event.type, event.payload.until])).to.deep.equal([
        ['node_waiting', '2026-11-27T12:00:00.000Z'],
        ['node_waiting', '2026-11-27T13:00:00.000Z'],
      ]);
    });

    it('knows a numbered wait again when the workflow task ran again with a later time', async () => {
      const { knex } = test.db;
      const run = await createRun(knex, { workflowName: 'assist', definition: { nodes: [] } });
      const wait = (until: string, number: number) => ({
        runId: run.id,
        conversationId: null,
        nodeId: 'ask',
        type: 'node_waiting' as const,
        payload: { reason: 'usage_limit', until, wait: number },
      });
      await recordNode(context, wait('2026-11-27T12:00:00.000Z', 1));
      // The worker died before the local activity's result was recorded: the new worker runs the
      // workflow task again, later, so the same wait comes with a later `until`.
      await recordNode(context, wait('2026-11-27T12:00:04.000Z', 1));
      await recordNode(context, { ...wait('', 1), type: 'node_resumed', payload: { reason: 'usage_limit' } });
      await recordNode(context, wait('2026-11-27T13:00:00.000Z', 2));
      const events = await listRunEvents(knex, run.id);
      expect(events.map((event) => [event.type, event.payload.until, event.payload.wait])).to.deep.equal([
        ['node_waiting', '2026-11-27T12:00:00.000Z', 1],
        ['node_resumed', undefined, undefined],
        ['node_waiting', '2026-11-27T13:00:00.000Z', 2],
      ]);
    });
  });
}
