import { expect } from 'chai';
import pg from 'pg';
import * as conversations from '../../../db/repositories/conversations.js';
import { appendUserMessageAndEvent } from '../../../db/repositories/message-intake.js';
import {
  appendMessage,
  countUserMessages,
  findMessage,
  turnPlaceFigures,
} from '../../../db/repositories/messages.js';
import { messageWire } from '../../../domain/conversations/wire.js';
import { postMessage } from '../../../services/conversations/messages.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempHome } from '../../support/temp-dirs.js';

for (const kind of databaseKinds()) {
  describe(`a user's message stored with its event (${kind.name})`, () => {
    let test: TestDatabase;
    let home: ReturnType<typeof makeTempHome>;
    beforeEach(async () => {
      test = await kind.create();
      home = makeTempHome();
    });
    afterEach(async () => {
      await test.dispose();
      home.cleanup();
    });

    it('writes the message, its journal event (payload text as the wire form) and the last activity', async () => {
      const { knex } = test.db;
      const context = testServiceContext(test.db, { home: home.home });
      const conversation = await conversations.createConversation(knex, { platform: 'web' });
      const handedOver: number[] = [];
      const turns = {
        dispatch: async (_: string, messageId: number) => void handedOver.push(messageId),
        maxConcurrent: 2,
      };
      const content = 'Quotes " and \\ backslashes, a line\nbreak, ünïcode and {"json": 1}';
      const posted = await postMessage(context, turns, conversation.platformConversationId, content);

      expect(await findMessage(knex, posted.message.id)).to.deep.equal(posted.message);
      expect(posted.message).to.include({
        content,
        role: 'user',
        turnStatus: 'queued',
        conversationId: conversation.id,
      });
      const [event] = (await knex('events').where({ id: posted.eventId })) as {
        type: string;
        payload: string;
        stream_key: string;
      }[];
      expect(event).to.include({ type: 'message', stream_key: conversation.id });
      expect(event!.payload).to.equal(
        JSON.stringify({ messageId: posted.message.id, message: messageWire(posted.message) }),
      );
      const touched = await conversations.findConversationByRef(knex, conversation.platformConversationId);
      // Touched with the message (in the transaction of the SQLite path, a separate clock read).
      expect(touched!.lastActivityAt >= conversation.lastActivityAt).to.equal(true);
      expect(
        Math.abs(Date.parse(touched!.lastActivityAt) - Date.parse(posted.message.createdAt)),
      ).to.be.below(1000);
      expect(posted.place).to.deep.equal({ status: 'started', position: 0 });
      // The hand-over is not awaited by the answer; it has been called.
      await new Promise((resolve) => setImmediate(resolve));
      expect(handedOver).to.deep.equal([posted.message.id]);
    });

    it("tells a message's place in line from the turns accepted before it", async () => {
      const { knex } = test.db;
      const context = testServiceContext(test.db, { home: home.home });
      const busy = await conversations.createConversation(knex, { platform: 'web' });
      const waiting = await conversations.createConversation(knex, { platform: 'web' });
      const fresh = await conversations.createConversation(knex, { platform: 'web' });
      const earlier = (conversationId: string, turnStatus: 'running' | 'queued' | 'completed') =>
        appendMessage(knex, { conversationId, role: 'user', content: 'earlier', turnStatus });
      await earlier(busy.id, 'completed');
      await earlier(busy.id, 'running');
      await earlier(waiting.id, 'queued');
      const post = (conversation: conversations.Conversation, maxConcurrent: number) =>
        postMessage(context, { dispatch: async () => undefined, maxConcurrent }, conversation.id, 'next');

      // Behind its own conversation's running turn, and behind the one queued elsewhere.
      const behindOwn = await post(busy, 4);
      expect(behindOwn.place).to.deep.equal({ status: 'queued', position: 2 });
      // Its conversation is free, but the one session allowed is taken: behind both queued turns.
      const noSession = await post(fresh, 1);
      expect(noSession.place).to.deep.equal({ status: 'queued', position: 3 });
      // A session is free: it starts.
      const another = await conversations.createConversation(knex, { platform: 'web' });
      expect((await post(another, 2)).place).to.deep.equal({ status: 'started', position: 0 });
      // The counts equal a read of them after the commit (the path of a transaction).
      expect(await turnPlaceFigures(knex, fresh.id, noSession.message.id)).to.deep.equal({
        ahead: 0,
        active: 1,
        queuedBefore: 2,
      });
    });

    if (kind.name === 'postgres')
      it('writes nothing for a conversation deleted meanwhile, and wakes readers in other processes', async () => {
        const { knex } = test.db;
        const live = await conversations.createConversation(knex, { platform: 'web' });
        const listener = new pg.Client({ connectionString: test.databaseUrl });
        await listener.connect();
        try {
          const notified: string[] = [];
          listener.on('notification', (message) => notified.push(message.payload ?? ''));
          await listener.query('listen cairn_journal');
          const stored = await appendUserMessageAndEvent(knex, {
            conversationId: live.id,
            content: 'hello',
            createdAt: new Date().toISOString(),
            wireAfterId: '"note":"the fields after the id"',
          });
          expect(stored).to.not.equal(undefined);
          for (let wait = 0; wait < 50 && notified.length === 0; wait++)
            await new Promise((r) => setTimeout(r, 20));
          expect(notified).to.deep.equal([live.id]);

          const gone = await conversations.createConversation(knex, { platform: 'web' });
          await conversations.softDeleteConversation(knex, gone.id);
          const refused = await appendUserMessageAndEvent(knex, {
            conversationId: gone.id,
            content: 'too late',
            createdAt: new Date().toISOString(),
            wireAfterId: '"note":"none"',
          });
          expect(refused).to.equal(undefined);
          expect(await countUserMessages(knex, gone.id)).to.equal(0);
          expect(await knex('events').where({ stream_key: gone.id }).count({ n: '*' })).to.deep.equal([
            { n: '0' },
          ]);
        } finally {
          await listener.end();
        }
      });
  });
}
