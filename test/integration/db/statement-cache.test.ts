import { expect } from 'chai';
import type BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../db/connection.js';
import { MAX_STATEMENTS } from '../../../db/statement-cache.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface PoolingClient {
  acquireConnection(): Promise<BetterSqlite3.Database>;
  releaseConnection(connection: BetterSqlite3.Database): Promise<void>;
}

describe('SQLite statement cache (knex writer connection)', () => {
  let dir: { path: string; cleanup(): void };
  let db: Database;
  beforeEach(async () => {
    dir = makeTempDir('cairn-statements-');
    db = openDatabase({ sqliteFile: join(dir.path, 'cairn.db') });
    await db.knex.schema.createTable('items', (table) => {
      table.increments('id');
      table.string('name').notNullable();
      table.integer('size').notNullable();
    });
  });
  afterEach(async () => {
    await db.close();
    dir.cleanup();
  });

  async function withConnection<T>(use: (connection: BetterSqlite3.Database) => T): Promise<T> {
    const client = db.knex.client as unknown as PoolingClient;
    const connection = await client.acquireConnection();
    try {
      return use(connection);
    } finally {
      await client.releaseConnection(connection);
    }
  }

  it('prepares a SQL text once per connection', async () => {
    await withConnection((connection) => {
      const first = connection.prepare('select count(*) as n from items');
      expect(connection.prepare('select count(*) as n from items')).to.equal(first);
      expect(connection.prepare('select name from items')).not.to.equal(first);
    });
  });

  it('answers each query with its own bindings through knex', async () => {
    for (let index = 0; index < 20; index += 1)
      await db.knex('items').insert({ name: `item-${index}`, size: index });
    for (const size of [3, 11, 19]) {
      const rows = await db.knex('items').where('size', size).select('name');
      expect(rows).to.deep.equal([{ name: `item-${size}` }]);
    }
    const updated = await db.knex('items').where('size', '>', 15).update({ name: 'large' });
    expect(updated).to.equal(4);
    expect(await db.knex('items').where('name', 'large').count({ n: '*' })).to.deep.equal([{ n: 4 }]);
  });

  it('starts each query with plain numbers after one that asked for BigInts', async () => {
    await db.knex('items').insert({ name: 'one', size: 7 });
    const big = await db.knex('items').select('size').options({ safeIntegers: true });
    expect(big).to.deep.equal([{ size: 7n }]);
    expect(await db.knex('items').select('size')).to.deep.equal([{ size: 7 }]);
  });

  it('sees a column added after the statement was cached', async () => {
    await db.knex('items').insert({ name: 'one', size: 1 });
    expect(await db.knex('items').select('*')).to.deep.equal([{ id: 1, name: 'one', size: 1 }]);
    await db.knex.schema.alterTable('items', (table) => table.string('colour'));
    expect(await db.knex('items').select('*')).to.deep.equal([{ id: 1, name: 'one', size: 1, colour: null }]);
  });

  it('keeps answering past its bound of distinct texts', async () => {
    await db.knex('items').insert({ name: 'one', size: 1 });
    for (let index = 0; index <= MAX_STATEMENTS + 10; index += 1) {
      const rows = await db.knex.raw(`select size + ${index} as total from items`);
      expect(rows).to.deep.equal([{ total: 1 + index }]);
    }
    expect(await db.knex('items').select('name')).to.deep.equal([{ name: 'one' }]);
  });

  it('rolls back a transaction whose statements were cached before it', async () => {
    await db.knex('items').insert({ name: 'kept', size: 1 });
    await db.knex
      .transaction(async (trx) => {
        await trx('items').insert({ name: 'dropped', size: 2 });
        expect(await trx('items').count({ n: '*' })).to.deep.equal([{ n: 2 }]);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await db.knex('items').select('name')).to.deep.equal([{ name: 'kept' }]);
  });
});
