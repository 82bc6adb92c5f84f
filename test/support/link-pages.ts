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

  return { get, followLinks };
}
