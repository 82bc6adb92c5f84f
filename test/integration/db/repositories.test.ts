import { expect } from 'chai';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import * as codebases from '../../../db/repositories/codebases.js';
import * as conversations from '../../../db/repositories/conversations.js';
import * as messages from '../../../db/repositories/messages.js';
import { countTurnsAndRuns } from '../../../db/repositories/service-figures.js';
import * as sessions from '../../../db/repositories/assistant-sessions.js';
import * as environments from '../../../db/repositories/isolation-environments.js';
import * as runs from '../../../db/repositories/workflow-runs.js';
import * as runEvents from '../../../db/repositories/run-events.js';
import * as journal from '../../../db/repositories/events.js';
import { JOURNAL_CHANNEL } from '../../../db/journal-signals.js';
import pg from 'pg';

for (const kind of databaseKinds()) {
  describe(`repositories (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(async () => {
      await test.dispose();
    });

    it('stores codebases and refuses a second row for one repository key', async () => {
      const { knex } = test.db;
      const created = await codebases.createCodebase(knex, {
        name: 'acme/widgets',
        repositoryKey: 'github.com/acme/widgets',
        url: 'https://github.com/acme/widgets.git',
        sourcePath: '/tmp/x/source',
      });
      expect(created.allowEnvKeys).to.equal(false);
      const found = await codebases.findCodebase(knex, created.id);
      expect(found).to.deep.equal(created);
      expect((await codebases.findCodebaseByRepositoryKey(knex, 'github.com/acme/widgets'))?.id).to.equal(
        created.id,
      );
      const updated = await codebases.updateCodebase(knex, created.id, { allowEnvKeys: true });
      expect(updated?.allowEnvKeys).to.equal(true);
      let duplicate: unknown;
      try {
        await codebases.createCodebase(knex, {
          name: 'again',
          repositoryKey: 'github.com/acme/widgets',
          sourcePath: '/y',
        });
      } catch (error) {
        duplicate = error;
      }
      expect(duplicate, 'unique repository_key').to.be.instanceOf(Error);
      expect(await codebases.deleteCodebase(knex, created.id)).to.equal(true);
      expect(await codebases.listCodebases(knex)).to.deep.equal([]);
    });

    it('soft-deletes conversations and hides them unless asked', async () => {
      const { knex } = test.db;
      const a = await conversations.createConversation(knex, { platform: 'web' });
      const b = await conversations.createConversation(knex, { platform: 'web', title: 'second' });
      expect(a.platformConversationId).to.equal(a.id);
      expect(await conversations.softDeleteConversation(knex, a.id)).to.equal(true);
      expect(await conversations.softDeleteConversation(knex, a.id)).to.equal(false);
      expect((await conversations.listConversations(knex)).map((c) => c.id)).to.deep.equal([b.id]);
      const all = await conversations.listConversations(knex, { includeDeleted: true });
      expect(all.map((c) => c.id).sort()).to.deep.equal([a.id, b.id].sort());
      expect((await conversations.findConversation(knex, a.id))?.deletedAt).to.be.a('string');
      expect((await conversations.renameConversation(knex, b.id, 'renamed'))?.title).to.equal('renamed');
      expect(
        (await conversations.findConversationByPlatformId(knex, 'web', b.platformConversationId))?.id,
      ).to.equal(b.id);
    });

    it('pages messages by id and counts turns exactly', async () => {
      const { knex } = test.db;
      const conversation = await conversations.createConversation(knex, { platform: 'web' });
      const stored = [];
      for (let i = 0; i < 5; i += 1) {
        stored.push(
          await messages.appendMessage(knex, {
            conversationId: conversation.id,
            role: 'user',
            content: `m${i}`,
            turnStatus: 'queued',
            metadata: { i },
          }),
        );
      }
      const firstPage = await messages.listMessagesBefore(knex, conversation.id, { limit: 2 });
      expect(firstPage.map((m) => m.content)).to.deep.equal(['m4', 'm3']);
      const secondPage = await messages.listMessagesBefore(knex, conversation.id, {
        limit: 2,
        beforeId: firstPage[1]!.id,
      });
      expect(secondPage.map((m) => m.content)).to.deep.equal(['m2', 'm1']);
      expect(secondPage[0]!.metadata).to.deep.equal({ i: 2 });

      expect(await messages.transitionTurn(knex, stored[0]!.id, ['queued'], 'running')).to.equal(true);
      expect(await messages.transitionTurn(knex, stored[0]!.id, ['queued'], 'running')).to.equal(false);
      expect(await messages.countTurns(knex)).to.deep.equal({ active: 1, queued: 4 });
      expect(await countTurnsAndRuns(knex)).to.deep.equal({ active: 1, queued: 4, runningWorkflows: 0 });
      // A turn's place: its conversation's open turns before it, the sessions held, and the turns
      // of every conversation waiting before it.
      const other = await conversations.createConversation(knex, { platform: 'web' });
      const elsewhere = await messages.appendMessage(knex, {
        conversationId: other.id,
        role: 'user',
        content: 'elsewhere',
        turnStatus: 'queued',
      });
      expect(await messages.turnPlaceFigures(test.db.reader, conversation.id, stored[3]!.id)).to.deep.equal({
        ahead: 3,
        active: 1,
        queuedBefore: 2,
      });
      expect(await messages.turnPlaceFigures(test.db.reader, other.id, elsewhere.id)).to.deep.equal({
        ahead: 0,
        active: 1,
        queuedBefore: 4,
      });
    });

    it('keeps one active isolation environment per codebase, kind and key', async () => {
      const { knex } = test.db;
      const codebase = await codebases.createCodebase(knex, {
        name: 'r',
        repositoryKey: 'k',
        sourcePath: '/s',
      });
      const input = {
        codebaseId: codebase.id,
        kind: 'thread' as const,
        key: 'abc',
        branch: 'cairn/thread-abc',
        path: '/w/1',
      };
      const first = await environments.createEnvironment(knex, input);
      let clash: unknown;
      try {
        await environments.createEnvironment(knex, { ...input, path: '/w/2' });
      } catch (error) {
        clash = error;
      }
      expect(clash, 'second active environment').to.be.instanceOf(Error);
      expect(await environments.markEnvironmentDestroyed(knex, first.id)).to.equal(true);
      const second = await environments.createEnvironment(knex, { ...input, path: '/w/2' });
      expect((await environments.findActiveEnvironment(knex, codebase.id, 'thread', 'abc'))?.id).to.equal(
        second.id,
      );
      expect(await environments.listEnvironments(knex, codebase.id)).to.have.length(2);
    });

    it('changes a run status only from the expected state', async () => {
      const { knex } = test.db;
      const run = await runs.createRun(knex, {
        workflowName: 'assist',
        definition: { name: 'assist', nodes: [] },
      });
      expect(await runs.transitionRun(knex, run.id, ['pending'], 'running')).to.equal(true);
      expect(await runs.countRunsWithStatus(knex, 'running')).to.equal(1);
      expect(await runs.transitionRun(knex, run.id, ['paused'], 'running')).to.equal(false);
      expect(await runs.transitionRun(knex, run.id, ['running'], 'failed', { error: 'boom' })).to.equal(true);
      const failed = await runs.findRun(knex, run.id);
      expect(failed?.status).to.equal('failed');
      expect(failed?.error).to.equal('boom');
      expect(failed?.startedAt).to.be.a('string');
      expect(failed?.completedAt).to.be.a('string');
      expect(failed?.definition).to.deep.equal({ name: 'assist', nodes: [] });

      await runEvents.appendRunEvent(knex, { runId: run.id, type: 'run_started', actor: 'test' });
      await runEvents.appendRunEvent(knex, {
        runId: run.id,
        type: 'node_started',
        nodeId: 'plan',
        payload: { n: 1 },
      });
      const events = await runEvents.listRunEvents(knex, run.id);
      expect(events.map((e) => e.type)).to.deep.equal(['run_started', 'node_started']);
      expect(events[1]!.payload).to.deep.equal({ n: 1 });
    });

    it('appends journal events in order and reads them after an id', async () => {
      const { knex } = test.db;
      const appended = await journal.appendEvents(knex, [
        { streamKey: 'c1', type: 'text', payload: { n: 1 } },
        { streamKey: journal.DASHBOARD_STREAM, type: 'run_started', payload: { n: 2 } },
        { streamKey: 'c1', type: 'text', payload: { n: 3 } },
      ]);
      expect(appended.map((e) => e.payload.n)).to.deep.equal([1, 2, 3]);
      expect(appended[0]!.id).to.be.lessThan(appended[2]!.id);
      const after = await journal.readEventsAfter(knex, 'c1', appended[0]!.id);
      expect(after.map((e) => e.payload)).to.deep.equal([{ n: 3 }]);
      expect(await journal.latestEventId(knex, 'c1')).to.equal(appended[2]!.id);
      expect(await journal.latestEventId(knex, 'nobody')).to.equal(0);
    });

    if (kind.name === 'postgres') {
      it('commits journal ids in order, so a reader tailing by id never skips an event', async () => {
        const { knex } = test.db;
        const slow = await knex.transaction();
        const [first] = await journal.appendEvents(slow, [{ streamKey: 's', type: 'a', payload: {} }]);
        let secondDone = false;
        const second = journal.appendEvent(knex, { streamKey: 's', type: 'b', payload: {} }).then((event) => {
          secondDone = true;
          return event;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(secondDone, 'the second append waits for the first to commit').to.equal(false);
        expect(await journal.readEventsAfter(knex, 's', 0)).to.deep.equal([]);
        await slow.commit();
        const stored = await second;
        expect(stored.id).to.be.greaterThan(first!.id);
        expect((await journal.readEventsAfter(knex, 's', 0)).map((e) => e.type)).to.deep.equal(['a', 'b']);
      });
    }

    if (kind.name === 'postgres') {
      it('notifies every stream an append shows on at its commit, and none when it rolls back', async () => {
        const listener = new pg.Client({ connectionString: test.databaseUrl });
        await listener.connect();
        try {
          const heard: string[] = [];
          listener.on('notification', (message) => {
            if (message.channel === JOURNAL_CHANNEL) heard.push(message.payload!);
          });
          await listener.query(`LISTEN ${JOURNAL_CHANNEL}`);
          const { knex } = test.db;
          await knex
            .transaction(async (trx) => {
              await journal.appendEvent(trx, { streamKey: 'dropped', type: 'a', payload: {} });
              throw new Error('roll back');
            })
            .catch(() => undefined);
          await knex.transaction(async (trx) => {
            await journal.appendEvents(trx, [
              { streamKey: 'c1', type: 'run_started', payload: {}, onDashboard: true },
              { streamKey: 'c2', type: 'text', payload: {} },
            ]);
            // Queued in the transaction, delivered only at its commit.
            await new Promise((resolve) => setTimeout(resolve, 100));
            expect(heard).to.deep.equal([]);
          });
          for (let waited = 0; heard.length < 3 && waited < 5_000; waited += 20)
            await new Promise((resolve) => setTimeout(resolve, 20));
          expect(heard.sort()).to.deep.equal([journal.DASHBOARD_STREAM, 'c1', 'c2'].sort());
        } finally {
          await listener.end();
        }
      });
    }

    it('deletes assistant sessions inactive since a cutoff', async () => {
      const { knex } = test.db;
      const conversation = await conversations.createConversation(knex, { platform: 'web' });
      const session = await sessions.createAssistantSession(knex, {
        conversationId: conversation.id,
        assistant: 'claude',
      });
      await sessions.recordProviderSession(knex, session.id, 'provider-123');
      expect((await sessions.findActiveSession(knex, conversation.id))?.providerSessionId).to.equal(
        'provider-123',
      );
      expect(await sessions.deleteSessionsInactiveSince(knex, '2000-01-01T00:00:00.000Z')).to.equal(0);
      expect(
        await sessions.deleteSessionsInactiveSince(knex, new Date(Date.now() + 60_000).toISOString()),
      ).to.equal(1);
    });
  });
}
