import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../db/connection.js';
import { listenForJournalAppends, type JournalListener } from '../../../db/journal-listener.js';
import { createCodebase, deleteCodebase } from '../../../db/repositories/codebases.js';
import { projectDirectory } from '../../../services/workflow-definitions/project-directory.js';
import { createLogger } from '../../../config/logger.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const postgres = databaseKinds().find((kind) => kind.name === 'postgres');

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  for (const deadline = Date.now() + timeoutMs; !(await done());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const refused = (db: Database, path: string) =>
  projectDirectory(db, path).then(
    () => false,
    () => true,
  );

if (postgres)
  describe('codebase change notices and the path cache of the listings (postgres)', function () {
    this.timeout(30_000);
    let test: TestDatabase;
    let other: Database;
    let listener: JournalListener | undefined;
    let dir: ReturnType<typeof makeTempDir>;
    let checkout: string;

    beforeEach(async () => {
      test = await postgres.create();
      // Another process on the same database: its writes reach this one only as notices.
      other = openDatabase({ databaseUrl: test.databaseUrl, sqliteFile: '' });
      dir = makeTempDir('cairn-checkout-');
      checkout = join(dir.path, 'shop');
      mkdirSync(checkout);
      listener = listenForJournalAppends(
        test.db.knex,
        createLogger({ level: 'silent' }),
        test.db.codebasePaths,
      );
      await until('the listener to trust the cache', () => test.db.codebasePaths!.trusted);
    });

    afterEach(async () => {
      await listener?.stop();
      await other.close();
      await test.dispose();
      dir.cleanup();
    });

    it('stops allowing a checkout at once when another process deletes its codebase', async () => {
      const made = await createCodebase(other.knex, {
        name: 'shop',
        repositoryKey: 'shop',
        sourcePath: checkout,
      });
      expect((await projectDirectory(test.db, checkout)).codebase.id).to.equal(made.id);
      // Kept in memory once the creation's own notice has come by: a lookup then makes no read.
      const fromMemory = async () => {
        await projectDirectory(test.db, checkout);
        const kept = await test.db.codebasePaths!.lookup(checkout, () => Promise.reject(new Error('read')));
        return kept?.id === made.id;
      };
      await until('the checkout to be kept', () => fromMemory().catch(() => false));

      await deleteCodebase(other.knex, made.id);
      await until('the deletion to be heard', () => refused(test.db, checkout), 5_000);
    });

    it('reads through while its listener is cut off, and trusts again once it listens anew', async () => {
      const made = await createCodebase(other.knex, {
        name: 'shop',
        repositoryKey: 'shop',
        sourcePath: checkout,
      });
      await projectDirectory(test.db, checkout);
      const killed = await other.knex.raw(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN %'",
      );
      expect(killed.rows.length).to.equal(1);
      await until('the lost connection to be noticed', () => !test.db.codebasePaths!.trusted);
      // A change made while nobody listens is seen by the next lookup.
      await deleteCodebase(other.knex, made.id);
      expect(await refused(test.db, checkout)).to.equal(true);
      await until('the listener to reconnect', () => test.db.codebasePaths!.trusted, 10_000);
      const again = await createCodebase(other.knex, {
        name: 'shop',
        repositoryKey: 'shop2',
        sourcePath: checkout,
      });
      await until('the new codebase to be allowed', async () => !(await refused(test.db, checkout)));
      expect((await projectDirectory(test.db, checkout)).codebase.id).to.equal(again.id);
    });
  });
