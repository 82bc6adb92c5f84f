import { expect } from 'chai';
import { TurnRecorder } from '../../../services/conversations/turn-recorder.js';
import { claimTurn, endTurn, TurnSuperseded } from '../../../services/conversations/turn-state.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { readEventsAfter } from '../../../db/repositories/events.js';
import { appendMessage, findMessage, listMessagesBefore } from '../../../db/repositories/messages.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';

for (const kind of databaseKinds()) {
  describe(`turn ownership between attempts (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(() => test.dispose());

    async function queuedTurn() {
      const conversation = await createConversation(test.db.knex, { platform: 'web' });
      const message = await appendMessage(test.db.knex, {
        conversationId: conversation.id,
        role: 'user',
        content: 'hello',
        turnStatus: 'queued',
      });
      return { conversationId: conversation.id, messageId: message.id };
    }

    it('lets a later attempt take the turn over; the earlier one, still alive, can no longer write or end it', async () => {
      const { knex } = test.db;
      const turn = await queuedTurn();
      const first = { messageId: turn.messageId, attempt: 1 };
      expect(await claimTurn(knex, first)).to.equal('started');
      const failures: unknown[] = [];
      const stale = new TurnRecorder({
        knex,
        conversationId: turn.conversationId,
        owner: first,
        onFailure: (e) => failures.push(e),
      });
      stale.record({ kind: 'text', text: 'partial answer from attempt 1' });
      stale.record({ kind: 'tool_call', toolCallId: 't1', name: 'Bash', input: { command: 'ls' } });
      await stale.settle();

      const second = { messageId: turn.messageId, attempt: 2 };
      expect(await claimTurn(knex, second)).to.equal('restarted');
      const replies = async () =>
        (await listMessagesBefore(knex, turn.conversationId, { limit: 50 })).filter(
          (m) => m.replyToMessageId === turn.messageId,
        );
      expect(await replies()).to.deep.equal([]);

      const fresh = new TurnRecorder({ knex, conversationId: turn.conversationId, owner: second });
      fresh.record({ kind: 'text', text: 'full answer from attempt 2' });
      stale.record({ kind: 'text', text: 'more from attempt 1' });
      await fresh.settle();
      let staleError: unknown;
      await stale.settle().catch((error: unknown) => (staleError = error));
      expect(staleError).to.be.instanceOf(TurnSuperseded);
      expect(failures).to.have.length(1);
      expect(await endTurn(knex, { ...turn, attempt: 1, end: 'completed', details: {} })).to.equal(false);
      expect(await endTurn(knex, { ...turn, attempt: 2, end: 'completed', details: {} })).to.equal(true);

      expect((await replies()).map((m) => m.content)).to.deep.equal(['full answer from attempt 2']);
      expect((await findMessage(knex, turn.messageId))!.turnStatus).to.equal('completed');
      const texts = (await readEventsAfter(knex, turn.conversationId, 0))
        .filter((event) => event.type === 'text_done')
        .map((event) => event.payload.text);
      expect(texts).to.deep.equal(['partial answer from attempt 1', 'full answer from attempt 2']);
    });

    it('ignores an attempt older than the owner, and a finished turn', async () => {
      const { knex } = test.db;
      const turn = await queuedTurn();
      expect(await claimTurn(knex, { messageId: turn.messageId, attempt: 3 })).to.equal('started');
      expect(await claimTurn(knex, { messageId: turn.messageId, attempt: 2 })).to.equal('finished');
      await endTurn(knex, { ...turn, attempt: 3, end: 'failed', details: {} });
      expect(await claimTurn(knex, { messageId: turn.messageId, attempt: 4 })).to.equal('finished');
    });
  });
}
