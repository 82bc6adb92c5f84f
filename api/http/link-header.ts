import type { HttpContext, ResponseHeaderSpec } from './route.js';

/**
 * RFC 8288 `Link` to the next page of a list whose body is a plain array (the spec fixes the
 * body, so the page position travels in a header). The target is the request's own path and
 * query with `cursor` and `limit` set, so filters carry over; relative, so it holds behind a proxy.
 */
export function nextPageLink(ctx: HttpContext, next: { cursor: string; limit: number }): string {
  const query = new URLSearchParams(ctx.querystring);
  query.set('cursor', next.cursor);
  query.set('limit', String(next.limit));
  return `<${ctx.path}?${query.toString()}>; rel="next"`;
}

/** How a paged plain-array list documents its `Link` header. */
export const nextPageLinkHeader: ResponseHeaderSpec = {
  description:
    'Present when more rows follow this page: `<path?...&cursor=...&limit=...>; rel="next"` (RFC 8288), ' +
    'the same request continued after the last row. Absent on the last page.',
  schema: { type: 'string' },
};
