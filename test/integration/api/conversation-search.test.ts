import { expect } from 'chai';
import { Client } from '@temporalio/client';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { createConversation, softDeleteConversation } from '../../../db/repositories/conversations.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { testServiceContext } from '../../support/service-context.js';
import { linkPager, NEXT_LINK } from '../../support/link-pages.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface Seeded {
  id: string;
  title: string | null;
  codebaseId: string | null;
  deleted: boolean;
  lastActivityAt: string;
}

/** Titles chosen so that a wildcard taken as a wildcard, or case, would change the answer. */
const TITLES = [
  'Deploy the shop',
  'deploy THE blog',
  'Fix 100% of the tests',
  'Fix 1000 of the tests',
  'rename user_id',
  'rename userXid',
  'path C:\\shop\\deploy',
  'path C:/shop/deploy',
  'Résumé du déploiement',
  null,
];

for (const kind of databaseKinds()) {
  describe(`conversations list search, ?q= (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    let codebaseId: string;
    const seeded: Seeded[] = [];

    before(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      const { knex } = test.db;
      codebaseId = (
        await createCodebase(knex, {
          name: 'shop',
          repositoryKey: '/tmp/shop',
          localPath: '/tmp/shop',
          sourcePath: '/tmp/shop',
        })
      ).id;
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      // Every title three times over (one on the codebase, one deleted), so a search spans pages.
      for (let round = 0; round < 3; round += 1) {
        for (const [index, title] of TITLES.entries()) {
          const onCodebase = round === 1 ? codebaseId : null;
          const conversation = await createConversation(knex, {
            platform: 'web',
            codebaseId: onCodebase,
            ...(title !== null && { title }),
          });
          const lastActivityAt = new Date(base - (round * TITLES.length + index) * 1_000).toISOString();
          await knex('conversations')
            .where({ id: conversation.id })
            .update({ last_activity_at: lastActivityAt });
          const deleted = round === 2 && index % 2 === 0;
          if (deleted) await softDeleteConversation(knex, conversation.id);
          seeded.push({ id: conversation.id, title, codebaseId: onCodebase, deleted, lastActivityAt });
        }
      }
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

    const { get, followLinks } = linkPager(() => app.url);
    const search = (q: string, more = '') => `/api/conversations?q=${encodeURIComponent(q)}${more}`;
    /** The seeded rows whose title holds `part` exactly (case aside), newest first. */
    const titled = (test: (title: string) => boolean, rows = seeded.filter((row) => !row.deleted)) =>
      rows
        .filter((row) => row.title !== null && test(row.title))
        .sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt))
        .map((row) => row.id);

    it('lists the conversations whose title contains the text, ignoring case, newest first', async () => {
      const page = await get<Array<{ id: string; title: string }>>(search('DEPLOY'));
      expect(page.status).to.equal(200);
      expect(page.body.map((row) => row.id)).to.deep.equal(
        titled((title) => title.toLowerCase().includes('deploy')),
      );
      expect(page.body.map((row) => row.title)).to.include.members([
        'Deploy the shop',
        'deploy THE blog',
        'path C:\\shop\\deploy',
        'path C:/shop/deploy',
      ]);
      expect(page.link).to.equal(null);
    });

    it('takes %, _ and \\ literally', async () => {
      for (const [q, expected] of [
        ['100%', 'Fix 100% of the tests'],
        ['user_id', 'rename user_id'],
        ['C:\\shop', 'path C:\\shop\\deploy'],
      ] as const) {
        const page = await get<Array<{ id: string }>>(search(q));
        expect(
          page.body.map((row) => row.id),
          q,
        ).to.deep.equal(titled((title) => title === expected));
      }
      // A pattern of wildcards alone matches only titles holding those characters.
      expect((await get<unknown[]>(search('%'))).body).to.have.length(titled((t) => t.includes('%')).length);
      expect((await get<unknown[]>(search('_'))).body).to.have.length(titled((t) => t.includes('_')).length);
    });

    it('finds text beyond ASCII', async () => {
      const page = await get<Array<{ id: string }>>(search('déploiement'));
      expect(page.body.map((row) => row.id)).to.deep.equal(titled((title) => title.includes('déploiement')));
      expect(page.body).to.have.length.greaterThan(0);
    });

    it('pages a search through Link rel=next, keeping q, each match once and in order', async () => {
      const pages = await followLinks(search('the', '&limit=2'));
      const expected = titled((title) => title.toLowerCase().includes('the'));
      expect(expected.length).to.be.greaterThan(4);
      expect(pages.flatMap((page) => page.ids)).to.deep.equal(expected);
      expect(pages).to.have.length(Math.ceil(expected.length / 2));
      const next = new URL(NEXT_LINK.exec(pages[0]!.link!)![1]!, app.url);
      expect(next.searchParams.get('q')).to.equal('the');
      expect(pages.at(-1)!.link).to.equal(null);
    });

    it('combines with the codebase filter and with include_deleted', async () => {
      const scoped = await get<Array<{ id: string }>>(search('tests', `&codebase_id=${codebaseId}`));
      expect(scoped.body.map((row) => row.id)).to.deep.equal(
        titled((title) => title.includes('tests')).filter(
          (id) => seeded.find((row) => row.id === id)!.codebaseId === codebaseId,
        ),
      );
      expect(scoped.body).to.have.length(2);
      const withDeleted = await get<Array<{ id: string }>>(search('shop', '&include_deleted=true'));
      expect(withDeleted.body.map((row) => row.id)).to.deep.equal(
        titled((title) => title.toLowerCase().includes('shop'), seeded),
      );
    });

    it('answers an empty list when nothing matches', async () => {
      const page = await get<unknown[]>(search('no such title anywhere'));
      expect(page.status).to.equal(200);
      expect(page.body).to.deep.equal([]);
      expect(page.link).to.equal(null);
    });

    it('refuses an empty or over-long q with a 400 naming /query/q', async () => {
      for (const q of ['', 'x'.repeat(201)]) {
        const answer = await get<{ errors?: Array<{ path: string }> }>(`/api/conversations?q=${q}`);
        expect(answer.status, `${q.length} characters`).to.equal(400);
        expect(answer.body.errors?.map((error) => error.path)).to.deep.equal(['/query/q']);
      }
      expect((await get<unknown[]>(`/api/conversations?q=${'x'.repeat(200)}`)).status).to.equal(200);
    });
  });
}
