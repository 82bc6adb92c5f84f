import { expect } from 'chai';
import { Client } from '@temporalio/client';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { createConversation, softDeleteConversation } from '../../../db/repositories/conversations.js';
import { encodeCursor } from '../../../api/http/index.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { testServiceContext } from '../../support/service-context.js';
import { linkPager, NEXT_LINK } from '../../support/link-pages.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface Listed {
  id: string;
  codebase_id: string | null;
  deleted: boolean;
  last_activity_at: string;
}

interface Seeded {
  id: string;
  lastActivityAt: string;
  codebaseId: string | null;
  deleted: boolean;
}

const SEEDED = 230;
/** The list's documented order: most recently active first, ties by id, descending. */
function listOrder(rows: Seeded[]): string[] {
  return [...rows]
    .sort((a, b) =>
      a.lastActivityAt === b.lastActivityAt
        ? b.id.localeCompare(a.id)
        : b.lastActivityAt.localeCompare(a.lastActivityAt),
    )
    .map((row) => row.id);
}

for (const kind of databaseKinds()) {
  describe(`conversations list paging (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    const seeded: Seeded[] = [];

    before(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      const { knex } = test.db;
      const codebase = await createCodebase(knex, {
        name: 'app',
        repositoryKey: '/tmp/app',
        localPath: '/tmp/app',
        sourcePath: '/tmp/app',
      });
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      for (let index = 0; index < SEEDED; index += 1) {
        const codebaseId = index % 7 === 0 ? codebase.id : null;
        const conversation = await createConversation(knex, { platform: 'web', codebaseId });
        // Three conversations share each instant, so pages must break ties by id.
        const lastActivityAt = new Date(base - Math.floor(index / 3) * 1_000).toISOString();
        await knex('conversations')
          .where({ id: conversation.id })
          .update({ last_activity_at: lastActivityAt });
        const deleted = index % 23 === 5;
        if (deleted) await softDeleteConversation(knex, conversation.id);
        seeded.push({ id: conversation.id, lastActivityAt, codebaseId, deleted });
      }
      // Temporal is never reached by the list: a lazy client connects only when asked to.
      app = await startTestCoreApp(test.db, testServiceContext(test.db, { home: home.path }), {
        temporal: { client: new Client() },
        taskQueue: 'unused',
      });
    });

    after(async () => {
      await app?.close();
      await test?.dispose();
      home?.cleanup();
    });

    const { get, followLinks, expectLimitsRefused, expectCursorsRefused } = linkPager(() => app.url);

    const live = () => seeded.filter((row) => !row.deleted);

    it('answers a default page of 50 as a plain array, with an RFC 8288 Link to the next page', async () => {
      const first = await get<Listed[]>('/api/conversations');
      expect(first.status).to.equal(200);
      expect(first.body).to.be.an('array').with.length(50);
      expect(first.body.map((row) => row.id)).to.deep.equal(listOrder(live()).slice(0, 50));
      const target = new URL(NEXT_LINK.exec(first.link ?? '')![1]!, app.url);
      expect(target.pathname).to.equal('/api/conversations');
      expect(target.searchParams.get('limit')).to.equal('50');
      expect(target.searchParams.get('cursor')).to.be.a('string').and.not.equal('');
    });

    it('following Link pages returns every row exactly once, in order, and the last page has no Link', async () => {
      const pages = await followLinks('/api/conversations');
      const ids = pages.flatMap((page) => page.ids);
      expect(ids).to.deep.equal(listOrder(live()));
      expect(new Set(ids).size).to.equal(ids.length);
      expect(pages.map((page) => page.ids.length)).to.deep.equal([50, 50, 50, 50, live().length - 200]);
      expect(pages.at(-1)!.link).to.equal(null);
      expect(pages.slice(0, -1).every((page) => page.link !== null)).to.equal(true);
    });

    it('keeps the other query parameters and the page size in the Link', async () => {
      const withDeleted = await followLinks('/api/conversations?include_deleted=true&limit=37');
      expect(withDeleted.flatMap((page) => page.ids)).to.deep.equal(listOrder(seeded));
      expect(withDeleted.slice(0, -1).every((page) => page.ids.length === 37)).to.equal(true);
      expect(withDeleted[0]!.link).to.include('include_deleted=true').and.include('limit=37');

      const codebaseId = seeded.find((row) => row.codebaseId)!.codebaseId!;
      const scoped = await followLinks(`/api/conversations?codebase_id=${codebaseId}&limit=4`);
      const expected = listOrder(live().filter((row) => row.codebaseId === codebaseId));
      expect(scoped.flatMap((page) => page.ids)).to.deep.equal(expected);
      expect(scoped).to.have.length(Math.ceil(expected.length / 4));
      expect(scoped[0]!.link).to.include(`codebase_id=${codebaseId}`);
    });

    it('serves at most 200 a page', async () => {
      const largest = await get<Listed[]>('/api/conversations?include_deleted=true&limit=200');
      expect(largest.body.map((row) => row.id)).to.deep.equal(listOrder(seeded).slice(0, 200));
      expect(largest.link).to.match(NEXT_LINK);
      const rest = await get<Listed[]>(NEXT_LINK.exec(largest.link!)![1]!);
      expect(rest.body.map((row) => row.id)).to.deep.equal(listOrder(seeded).slice(200));
      expect(rest.link).to.equal(null);
    });

    it('sends no Link when the page holds every row', async () => {
      const codebaseId = seeded.find((row) => row.codebaseId)!.codebaseId!;
      const scoped = live().filter((row) => row.codebaseId === codebaseId);
      for (const query of [`codebase_id=${codebaseId}`, `codebase_id=${codebaseId}&limit=${scoped.length}`]) {
        const page = await get<Listed[]>(`/api/conversations?${query}`);
        expect(
          page.body.map((row) => row.id),
          query,
        ).to.deep.equal(listOrder(scoped));
        expect(page.link, query).to.equal(null);
      }
    });

    it('refuses a bad limit with a 400 naming /query/limit', async () => {
      await expectLimitsRefused('/api/conversations', ['0', '-1', '201', '1000', 'ten', '2.5', '']);
    });

    it('refuses a bad cursor with a 400 invalid_cursor naming /query/cursor', async () => {
      await expectCursorsRefused('/api/conversations', [
        encodeCursor([42]),
        encodeCursor(['only-one']),
        encodeCursor(['not a time', 'x']),
        encodeCursor(['1', 'x']),
      ]);
    });

    it('never repeats a row when a conversation already listed becomes active while paging', async () => {
      const first = await get<Listed[]>('/api/conversations?limit=60');
      const seen = first.body.map((row) => row.id);
      await test.db
        .knex('conversations')
        .where({ id: seen[59] })
        .update({ last_activity_at: new Date('2031-01-01T00:00:00.000Z').toISOString() });
      const rest = await followLinks(NEXT_LINK.exec(first.link!)![1]!);
      const ids = [...seen, ...rest.flatMap((page) => page.ids)];
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids).to.have.members(live().map((row) => row.id));
    });

    it('documents limit, cursor and the Link header in the OpenAPI document', async () => {
      type Operation = {
        parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
        responses: Record<string, { headers?: Record<string, { schema: { type: string } }> }>;
      };
      const document = (await get<{ paths: Record<string, { get: Operation }> }>('/api/openapi.json')).body;
      const list = document.paths['/api/conversations']!.get;
      const limit = list.parameters.find((parameter) => parameter.name === 'limit');
      expect(limit).to.deep.include({ in: 'query' });
      expect(limit!.schema).to.include({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(list.parameters.find((parameter) => parameter.name === 'cursor')).to.deep.include({
        in: 'query',
      });
      expect(list.responses['200']!.headers?.Link?.schema.type).to.equal('string');
    });
  });
}
