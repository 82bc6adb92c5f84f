import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { HttpState } from './route.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id ends up in logs and headers, so only short plain tokens are trusted.
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function isSaneRequestId(value: string): boolean {
  return SANE_REQUEST_ID.test(value);
}

/** Honours a sane incoming X-Request-Id, otherwise makes one; echoes it on the response. */
export function requestId(): Middleware<HttpState> {
  return (ctx, next) => {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const id = isSaneRequestId(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    return next();
  };
}
