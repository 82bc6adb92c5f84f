import type { Middleware } from 'koa';
import type { OpenApiSecuritySchemes } from './openapi.js';
import type { HttpContext, HttpPrincipal, HttpState } from './route.js';
import type { HttpRouter } from './router.js';

/**
 * How an app learns who is calling. The kit asks on every request (so a public route still
 * knows a signed-in caller); a route that is not `public` is refused when nobody is found.
 */
export interface Authentication {
  /** Who the request acts for, or undefined when it shows no valid credentials. */
  authenticate(ctx: HttpContext): Promise<HttpPrincipal | undefined>;
  /** Answers a request without valid credentials: throws a 401, or sends a page to a sign-in. */
  refuse(ctx: HttpContext): void;
  /** The same requirements as the OpenAPI document states them. */
  securitySchemes: OpenApiSecuritySchemes;
}

/** True when every route at this method and path is public; an unknown path is not. */
function isPublicRoute(router: HttpRouter, publicNames: ReadonlySet<string>, ctx: HttpContext): boolean {
  const layers = router.match(ctx.path, ctx.method).pathAndMethod;
  return (
    layers.length > 0 && layers.every((layer) => layer.name !== undefined && publicNames.has(layer.name))
  );
}

/**
 * Sets ctx.state.principal, and refuses a non-public route without one. It runs before the body
 * is read: an anonymous caller's body is never parsed.
 */
export function requireAuthentication(
  authentication: Authentication,
  router: HttpRouter,
  publicOperationIds: readonly string[],
): Middleware<HttpState> {
  const publicNames = new Set(publicOperationIds);
  return async (ctx, next) => {
    const principal = await authentication.authenticate(ctx);
    if (principal) ctx.state.principal = principal;
    else if (!isPublicRoute(router, publicNames, ctx)) {
      authentication.refuse(ctx);
      return;
    }
    await next();
  };
}
