import { expect } from 'chai';
import { Client } from '@temporalio/client';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { encodeCursor } from '../../../api/http/index.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { testServiceContext } from '../../support/service-context.js';
import { linkPager, NEXT_LINK } from '../../support/link-pages.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface Listed {
  id: string;
  createdAt: string;
}

const SEEDED = 130;
for (const kind of databaseKinds()) {
  describe(`codebases list paging (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    /** The list's documented order: oldest first, ties by id. */
    let listOrder: string[] = [];

    before(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      const { knex } = test.db;
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      const seeded: Array<{ id: string; createdAt: string }> = [];
      for (let index = 0; index < SEEDED; index += 1) {
        const path = `/tmp/cairn-paging/${index}`;
        const codebase = await createCodebase(knex, {
          name: `app-${index}`,
          repositoryKey: path,
          localPath: path,
          sourcePath: path,
        });
        // Four codebases share each instant, so pages must break ties by id.
        const createdAt = new Date(base + Math.floor(index / 4) * 1_000).toISOString();
        await knex('codebases').where({ id: codebase.id }).update({ created_at: createdAt });
        seeded.push({ id: codebase.id, createdAt });
      }
      listOrder = seeded
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
        .map((row) => row.id);
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

    it('answers a default page of 50 as a plain array, with an RFC 8288 Link to the next page', async () => {
      const first = await get<Listed[]>('/api/codebases');
      expect(first.status).to.equal(200);
      expect(first.body).to.be.an('array').with.length(50);
      expect(first.body.map((row) => row.id)).to.deep.equal(listOrder.slice(0, 50));
      const target = new URL(NEXT_LINK.exec(first.link ?? '')![1]!, app.url);
      expect(target.pathname).to.equal('/api/codebases');
      expect(target.searchParams.get('limit')).to.equal('50');
      expect(target.searchParams.get('cursor')).to.be.a('string').and.not.equal('');
    });

    it('following Link pages returns every codebase once, in order, and the last page has no Link', async () => {
      const pages = await followLinks('/api/codebases');
      const ids = pages.flatMap((page) => page.ids);
      expect(ids).to.deep.equal(listOrder);
      expect(pages.map((page) => page.ids.length)).to.deep.equal([50, 50, SEEDED - 100]);
      expect(pages.at(-1)!.link).to.equal(null);

      const small = await followLinks('/api/codebases?limit=7');
      expect(small.flatMap((page) => page.ids)).to.deep.equal(listOrder);
      expect(small).to.have.length(Math.ceil(SEEDED / 7));
      expect(small[0]!.link).to.include('limit=7');
    });

    it('serves at most 200 a page, and no Link when the page holds every row', async () => {
      for (const limit of [200, SEEDED]) {
        const page = await get<Listed[]>(`/api/codebases?limit=${limit}`);
        expect(page.body.map((row) => row.id)).to.deep.equal(listOrder);
        expect(page.link).to.equal(null);
      }
    });

    it('refuses a bad limit with a 400 naming /query/limit', async () => {
      await expectLimitsRefused('/api/codebases', ['0', '-1', '201', 'ten', '2.5', '']);
    });

    it('refuses a bad cursor with a 400 invalid_cursor naming /query/cursor', async () => {
      await expectCursorsRefused('/api/codebases', [
        encodeCursor([42]),
        encodeCursor(['only-one']),
        encodeCursor(['yesterday', 'some-id']),
      ]);
    });

    it('documents limit, cursor and the Link header in the OpenAPI document', async () => {
      type Operation = {
        parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
        responses: Record<string, { headers?: Record<string, { schema: { type: string } }> }>;
      };
      const document = (await get<{ paths: Record<string, { get: Operation }> }>('/api/openapi.json')).body;
      const list = document.paths['/api/codebases']!.get;
      const limit = list.parameters.find((parameter) => parameter.name === 'limit');
      expect(limit).to.deep.include({ in: 'query' });
      expect(limit!.schema).to.include({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(list.parameters.find((parameter) => parameter.name === 'cursor')).to.deep.include({
        in: 'query',
      });
      expect(list.responses['200']!.headers!.Link!.schema.type).to.equal('string');
    });
  });
}
