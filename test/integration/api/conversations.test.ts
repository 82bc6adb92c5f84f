import { expect } from 'chai';
import { appendMessage } from '../../../db/repositories/messages.js';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { testServiceContext } from '../../support/service-context.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface ConversationBody {
  id: string;
  platform_conversation_id: string;
  codebase_id: string | null;
  title: string | null;
  deleted: boolean;
}

interface Problem {
  status: number;
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

for (const kind of databaseKinds()) {
  describe(`conversations API (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let workers: RunningTestWorkers;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      const context = testServiceContext(test.db, { home: home.path });
      workers = await startTestWorkers(test.db, { dependencies: context });
      app = await startTestCoreApp(test.db, context, workers);
    });

    afterEach(async () => {
      await app.close();
      await workers.stop();
      await test.dispose();
      home.cleanup();
    });

    async function call<T = unknown>(method: string, path: string, body?: unknown, raw?: string) {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: body !== undefined || raw !== undefined ? { 'Content-Type': 'application/json' } : {},
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: (text ? JSON.parse(text) : undefined) as T,
        headers: response.headers,
      };
    }

    async function newConversation(body: unknown = {}): Promise<ConversationBody> {
      const created = await call<ConversationBody>('POST', '/api/conversations', body);
      expect(created.status).to.equal(201);
      return created.body;
    }

    it('creates conversations from an empty object or none, and reads them back by platform_conversation_id', async () => {
      const first = await newConversation();
      expect(first.platform_conversation_id).to.be.a('string').and.not.equal('');
      expect(first).to.include({ codebase_id: null, title: null, deleted: false });
      const bare = await call<ConversationBody>('POST', '/api/conversations');
      expect(bare.status).to.equal(201);
      const read = await call<ConversationBody>(
        'GET',
        `/api/conversations/${first.platform_conversation_id}`,
      );
      expect(read.status).to.equal(200);
      expect(read.body.id).to.equal(first.id);
    });

    it('scopes a conversation to a codebase, filters the list by it, and refuses an unknown one with 404', async () => {
      const codebase = await createCodebase(test.db.knex, {
        name: 'app',
        repositoryKey: '/tmp/app',
        localPath: '/tmp/app',
        sourcePath: '/tmp/app',
      });
      const scoped = await newConversation({ codebase_id: codebase.id });
      await newConversation();
      expect(scoped.codebase_id).to.equal(codebase.id);
      const filtered = await call<ConversationBody[]>('GET', `/api/conversations?codebase_id=${codebase.id}`);
      expect(filtered.body.map((c) => c.id)).to.deep.equal([scoped.id]);

      const unknown = await call<Problem>('POST', '/api/conversations', { codebase_id: 'nope' });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.errors?.[0]?.path).to.equal('/body/codebase_id');
    });

    it('renames, and soft-deletes: hidden unless include_deleted, messages kept, new messages and renames refused', async () => {
      const conversation = await newConversation();
      const id = conversation.platform_conversation_id;
      const renamed = await call<ConversationBody>('PATCH', `/api/conversations/${id}`, {
        title: '  Deploy plan ',
      });
      expect(renamed.body.title).to.equal('Deploy plan');
      await appendMessage(test.db.knex, { conversationId: conversation.id, role: 'user', content: 'kept' });

      const deleted = await call<ConversationBody>('DELETE', `/api/conversations/${id}`);
      expect(deleted.status).to.equal(200);
      expect(deleted.body.deleted).to.equal(true);
      expect((await call<ConversationBody[]>('GET', '/api/conversations')).body).to.deep.equal([]);
      const all = await call<ConversationBody[]>('GET', '/api/conversations?include_deleted=true');
      expect(all.body.map((c) => c.id)).to.deep.equal([conversation.id]);
      // The flag's other usual spellings, a bare flag included.
      for (const query of ['include_deleted', 'include_deleted=1', 'include_deleted=yes'])
        expect(
          (await call<ConversationBody[]>('GET', `/api/conversations?${query}`)).body,
          query,
        ).to.have.length(1);
      expect(
        (await call<ConversationBody[]>('GET', '/api/conversations?include_deleted=0')).body,
      ).to.deep.equal([]);
      const messages = await call<{ items: Array<{ content: string }> }>(
        'GET',
        `/api/conversations/${id}/messages`,
      );
      expect(messages.body.items.map((m) => m.content)).to.deep.equal(['kept']);

      const post = await call<Problem>('POST', `/api/conversations/${id}/message`, { message: 'hello?' });
      expect(post.status).to.equal(409);
      expect(post.body.code).to.equal('conversation_deleted');
      expect((await call('PATCH', `/api/conversations/${id}`, { title: 'x' })).status).to.equal(409);
    });

    it('refuses bad input with a 4xx naming the field', async () => {
      const conversation = await newConversation();
      const path = `/api/conversations/${conversation.platform_conversation_id}/message`;
      for (const body of [
        {},
        { message: '' },
        { message: '   ' },
        { message: 42 },
        { message: 'x', extra: 1 },
      ]) {
        const answer = await call<Problem>('POST', path, body);
        expect(answer.status, JSON.stringify(body)).to.equal(400);
        expect(answer.body.errors?.[0]?.path, JSON.stringify(body)).to.match(/^\/body/);
      }
      expect((await call('POST', path, undefined, '{"message":')).status).to.equal(400);
      const huge = await call<Problem>('POST', path, { message: 'x'.repeat(2_000_000) });
      expect(huge.status).to.equal(413);
      expect((await call('POST', '/api/conversations/unknown/message', { message: 'hi' })).status).to.equal(
        404,
      );
      expect((await call('GET', '/api/conversations/unknown')).status).to.equal(404);
      expect((await call('GET', '/api/conversations/unknown/messages')).status).to.equal(404);
      expect((await call('PATCH', `/api/conversations/${conversation.id}`, { title: '' })).status).to.equal(
        400,
      );
      expect((await call('POST', '/api/conversations', { unexpected: true })).status).to.equal(400);
    });

    it('pages messages newest first with an opaque cursor that stays correct while messages arrive', async () => {
      const conversation = await newConversation();
      const path = `/api/conversations/${conversation.platform_conversation_id}/messages`;
      for (let index = 1; index <= 7; index += 1) {
        await appendMessage(test.db.knex, {
          conversationId: conversation.id,
          role: 'user',
          content: `m${index}`,
        });
      }
      type Page = { items: Array<{ content: string }>; nextCursor?: string };
      const first = await call<Page>('GET', `${path}?limit=3`);
      expect(first.body.items.map((m) => m.content)).to.deep.equal(['m7', 'm6', 'm5']);
      await appendMessage(test.db.knex, {
        conversationId: conversation.id,
        role: 'assistant',
        content: 'late',
      });
      const second = await call<Page>('GET', `${path}?limit=3&before=${first.body.nextCursor}`);
      expect(second.body.items.map((m) => m.content)).to.deep.equal(['m4', 'm3', 'm2']);
      const last = await call<Page>('GET', `${path}?limit=3&before=${second.body.nextCursor}`);
      expect(last.body.items.map((m) => m.content)).to.deep.equal(['m1']);
      expect(last.body.nextCursor).to.equal(undefined);

      const everything = await call<Page>('GET', path);
      expect(everything.body.items).to.have.length(8);
      expect((await call<Problem>('GET', `${path}?before=garbage`)).body.code).to.equal('invalid_cursor');
      expect((await call('GET', `${path}?limit=501`)).status).to.equal(400);
      expect((await call('GET', `${path}?limit=0`)).status).to.equal(400);
    });

    it('describes every conversation route in the OpenAPI document', async () => {
      const document = (
        await call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/api/openapi.json')
      ).body;
      expect(Object.keys(document.paths['/api/conversations']!)).to.have.members(['get', 'post']);
      expect(Object.keys(document.paths['/api/conversations/{id}']!)).to.have.members([
        'get',
        'patch',
        'delete',
      ]);
      expect(document.paths['/api/conversations/{id}/messages']).to.have.property('get');
      expect(document.paths['/api/conversations/{id}/message']).to.have.property('post');
      expect(document.paths['/api/stream/{conversationId}']).to.have.property('get');
    });
  });
}
