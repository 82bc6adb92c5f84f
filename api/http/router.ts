import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { HttpProblem } from './problem.js';
import type { HttpContext, HttpState, NormalizedRoute } from './route.js';
import { createRouteHandler, type RouteHandlerOptions } from './route-handler.js';
import type { SchemaCompiler } from './validation.js';

export type HttpRouter = Router<HttpState>;

/** A plain GET endpoint that is not part of the route table (e.g. the OpenAPI document). */
export interface StaticEndpoint {
  path: string;
  handler: (ctx: HttpContext) => void;
}

export function buildRouter(
  routes: NormalizedRoute[],
  compiler: SchemaCompiler,
  endpoints: StaticEndpoint[] = [],
  handlerOptions: RouteHandlerOptions = {},
): HttpRouter {
  // 'specificity': /items/search beats /items/{id}, as OpenAPI path matching requires.
  const router = new Router<HttpState>({ exclusive: 'specificity' });
  for (const route of routes) {
    router.register(route.routerPath, [route.method], createRouteHandler(route, compiler, handlerOptions), {
      name: route.definition.operationId,
    });
  }
  for (const endpoint of endpoints) {
    router.register(endpoint.path, ['GET'], (ctx) => endpoint.handler(ctx));
  }
  return router;
}

/** Methods the router answers on `path` (HEAD comes with GET); empty for an unknown path. */
export function methodsForPath(router: HttpRouter, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.match(path, 'GET').path) {
    for (const method of layer.methods) methods.add(method);
  }
  return [...methods];
}

/** Last in the chain: what no route handled is a 405 on a known path, else a 404. */
export function unmatchedRoute(router: HttpRouter): Middleware<HttpState> {
  return (ctx) => {
    const allowed = methodsForPath(router, ctx.path);
    if (allowed.length > 0) throw HttpProblem.methodNotAllowed(ctx.method, allowed);
    throw HttpProblem.notFound(`No resource at ${ctx.path}.`);
  };
}
