import type { HttpContext } from '../../http/index.js';

/**
 * Who made a request, for audit lines: the signed-in user or `api-token` when sign-in is on;
 * otherwise the user an authenticating reverse proxy passes in X-Forwarded-User, else the client
 * address. With sign-in on, X-Forwarded-User is ignored: any client could send it.
 */
export function requestActor(ctx: HttpContext): string {
  const principal = ctx.state.principal;
  if (principal) return principal.name;
  const user = ctx.get('x-forwarded-user').trim();
  if (user && /^[\w.@+-]{1,128}$/.test(user)) return user;
  return `anonymous@${ctx.ip || 'unknown'}`;
}
