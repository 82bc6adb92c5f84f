import { expect } from 'chai';

/** An RFC 8288 next-page header as Cairn writes it: `<path?query>; rel="next"`. */
export const NEXT_LINK = /^<([^>]+)>; rel="next"$/;

export interface ListAnswer<T> {
  status: number;
  link: string | null;
  body: T;
}

/** Reads a list whose body is a plain array and whose next page is named by a Link header. */
export function linkPager(baseUrl: () => string) {
  async function get<T>(path: string): Promise<ListAnswer<T>> {
    const response = await fetch(new URL(path, baseUrl()));
    return {
      status: response.status,
      link: response.headers.get('link'),
      body: (await response.json()) as T,
    };
  }

  /** Every page from `path` on, following each Link until a page has none: the ids of each. */
  async function followLinks(path: string): Promise<Array<{ ids: string[]; link: string | null }>> {
    const pages: Array<{ ids: string[]; link: string | null }> = [];
    let next: string | undefined = path;
    while (next !== undefined) {
      const page: ListAnswer<Array<{ id: string }>> = await get(next);
      expect(page.status, next).to.equal(200);
      pages.push({ ids: page.body.map((row) => row.id), link: page.link });
      if (page.link !== null) expect(page.link).to.match(NEXT_LINK);
      next = page.link === null ? undefined : NEXT_LINK.exec(page.link)![1];
    }
    return pages;
  }

  type Refusal = { code?: string; errors?: Array<{ path: string }> };

  /** Each `limit` is refused with a 400 that names /query/limit and nothing else. */
  async function expectLimitsRefused(listPath: string, limits: string[]): Promise<void> {
    for (const limit of limits) {
      const answer = await get<Refusal>(`${listPath}?limit=${limit}`);
      expect(answer.status, limit).to.equal(400);
      expect(
        answer.body.errors?.map((error) => error.path),
        limit,
      ).to.deep.equal(['/query/limit']);
    }
  }

  /**
   * Garbage, non-JSON, a real cursor whose first key was edited, and each of `forged` (cursors
   * encoded with wrong keys): every one a 400 invalid_cursor naming /query/cursor.
   */
  async function expectCursorsRefused(listPath: string, forged: string[]): Promise<void> {
    const first = await get<unknown[]>(`${listPath}?limit=2`);
    const cursor = new URL(NEXT_LINK.exec(first.link!)![1]!, baseUrl()).searchParams.get('cursor')!;
    const edited = Buffer.from(
      Buffer.from(cursor, 'base64url')
        .toString('utf8')
        .replace(/"k":\["[^"]+"/, '"k":["2099-01-01T00:00:00.000Z"'),
    ).toString('base64url');
    for (const bad of ['garbage!', 'bm90IGpzb24', edited, ...forged]) {
      const answer = await get<Refusal>(`${listPath}?cursor=${encodeURIComponent(bad)}`);
      expect(answer.status, bad).to.equal(400);
      expect(answer.body.code, bad).to.equal('invalid_cursor');
      expect(answer.body.errors?.[0]?.path, bad).to.equal('/query/cursor');
    }
  }

  return { get, followLinks, expectLimitsRefused, expectCursorsRefused };
}
