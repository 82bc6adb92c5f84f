import { expect } from 'chai';
import { decodeCursor, encodeCursor, HttpProblem, page, pageLimit } from '../../../api/http/index.js';
import { startSampleServer, type RunningServer } from './sample-app.js';

function decodeFails(cursor: string, shape: Array<'string' | 'number'>, field?: string): HttpProblem {
  try {
    decodeCursor(cursor, shape, field);
  } catch (error) {
    expect(error).to.be.instanceOf(HttpProblem);
    return error as HttpProblem;
  }
  throw new Error('decodeCursor accepted a bad cursor');
}

function tamper(cursor: string, edit: (json: string) => string): string {
  return Buffer.from(edit(Buffer.from(cursor, 'base64url').toString('utf8'))).toString('base64url');
}

describe('http kit: cursors', () => {
  describe('encode and decode', () => {
    it('round-trips string and number keys as an opaque base64url token', () => {
      const cursor = encodeCursor(['2024-05-01T10:00:00.000Z', 42]);
      expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor, ['string', 'number'])).to.deep.equal(['2024-05-01T10:00:00.000Z', 42]);
    });

    it('refuses garbage, naming the query field', () => {
      const problem = decodeFails('not a cursor!', ['number'], 'before');
      expect(problem.status).to.equal(400);
      expect(problem.code).to.equal('invalid_cursor');
      expect(problem.errors?.[0]?.path).to.equal('/query/before');
    });

    it('refuses valid base64 that is not a cursor', () => {
      expect(decodeFails(Buffer.from('hello').toString('base64url'), ['number']).code).to.equal(
        'invalid_cursor',
      );
      expect(decodeFails(Buffer.from('{"v":2,"k":[1]}').toString('base64url'), ['number']).code).to.equal(
        'invalid_cursor',
      );
    });

    it('refuses a cursor whose keys were edited', () => {
      const cursor = encodeCursor([10]);
      const edited = tamper(cursor, (json) => json.replace('[10]', '[11]'));
      expect(decodeFails(edited, ['number']).errors?.[0]?.message).to.equal('has been altered');
    });

    it('refuses a cursor of another shape', () => {
      expect(decodeFails(encodeCursor(['a', 1]), ['number', 'number']).code).to.equal('invalid_cursor');
      expect(decodeFails(encodeCursor([1]), ['number', 'string']).code).to.equal('invalid_cursor');
    });
  });

  describe('pageLimit and page', () => {
    it('defaults and clamps the limit', () => {
      expect(pageLimit(undefined, { default: 20, max: 100 })).to.equal(20);
      expect(pageLimit(500, { default: 20, max: 100 })).to.equal(100);
      expect(pageLimit(0, { default: 20, max: 100 })).to.equal(1);
      expect(pageLimit(7, { default: 20, max: 100 })).to.equal(7);
    });

    it('uses the extra row only to decide that a next page exists', () => {
      const rows = [{ id: 1 }, { id: 2 }, { id: 3 }];
      const first = page(rows, 2, (row) => [row.id]);
      expect(first.items).to.deep.equal([{ id: 1 }, { id: 2 }]);
      expect(decodeCursor(first.nextCursor ?? '', ['number'])).to.deep.equal([2]);
      expect(page(rows, 3, (row) => [row.id])).to.deep.equal({ items: rows });
    });
  });

  describe('over HTTP', () => {
    let server: RunningServer;

    beforeEach(async () => {
      server = await startSampleServer();
    });

    afterEach(async () => {
      await server.close();
    });

    it('walks every page with nextCursor', async () => {
      const seen: number[] = [];
      let url = `${server.url}/api/items?limit=2`;
      for (let pages = 0; pages < 10; pages += 1) {
        const body = (await (await fetch(url)).json()) as {
          items: Array<{ id: number }>;
          nextCursor?: string;
        };
        seen.push(...body.items.map((item) => item.id));
        if (!body.nextCursor) break;
        url = `${server.url}/api/items?limit=2&cursor=${body.nextCursor}`;
      }
      expect(seen).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('answers a tampered cursor with a 400 invalid_cursor problem', async () => {
      const tampered = tamper(encodeCursor([2]), (json) => json.replace('[2]', '[0]'));
      const response = await fetch(`${server.url}/api/items?cursor=${tampered}`);
      expect(response.status).to.equal(400);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const problem = (await response.json()) as { code: string; errors: Array<{ path: string }> };
      expect(problem.code).to.equal('invalid_cursor');
      expect(problem.errors[0]?.path).to.equal('/query/cursor');
    });
  });
});
