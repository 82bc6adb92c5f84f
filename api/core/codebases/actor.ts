import type { HttpContext } from '../../http/index.js';

/**
 * Who made a request, for audit lines. Cairn has no users of its own; an authenticating
 * reverse proxy passes its user in X-Forwarded-User, otherwise the client address stands in.
 */
export function requestActor(ctx: HttpContext): string {
  const user = ctx.get('x-forwarded-user').trim();
  if (user && /^[\w.@+-]{1,128}$/.test(user)) return user;
  return `anonymous@${ctx.ip || 'unknown'}`;
}
