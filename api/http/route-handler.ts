import { hasBodyBytes, JSON_TYPES, parsedBody } from './body.js';
import { HttpProblem, type FieldError } from './problem.js';
import type { HttpContext, NormalizedRoute, RouteResult } from './route.js';
import type { InputValidator, SchemaCompiler } from './validation.js';

interface CompiledInputs {
  params?: InputValidator;
  query?: InputValidator;
  body?: InputValidator;
}

// Copies into a plain object: Object.fromEntries defines keys, so a `__proto__` key stays data.
function plainCopy(source: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source ?? {}));
}

function readBody(ctx: HttpContext, route: NormalizedRoute, errors: FieldError[]): unknown {
  if (!route.body) return undefined;
  if (hasBodyBytes(ctx) && !ctx.is(JSON_TYPES)) {
    const sent = ctx.get('Content-Type') || 'none';
    throw HttpProblem.unsupportedMediaType(`Expected an application/json body, got content type ${sent}.`);
  }
  const body = parsedBody(ctx);
  if (body === undefined && route.bodyRequired) errors.push({ path: '/body', message: 'is required' });
  return body;
}

function applyResult(ctx: HttpContext, result: RouteResult | undefined | void): void {
  if (!result) {
    // The handler owns the response (a stream, or ctx.respond = false): leave it alone.
    if (ctx.body != null || ctx.respond === false) return;
    if (ctx.status === 404) ctx.status = 204;
    return;
  }
  if (result.headers) ctx.set(result.headers);
  if (result.body !== undefined) {
    ctx.body = result.body;
    if (result.type) ctx.type = result.type;
  }
  ctx.status = result.status ?? (result.body === undefined ? 204 : 200);
}

/** Koa middleware that validates a request against its route, runs the handler and writes the result. */
export function createRouteHandler(route: NormalizedRoute, compiler: SchemaCompiler) {
  const label = `route ${route.definition.operationId}`;
  const inputs: CompiledInputs = {
    params: route.params && compiler.compile(route.params, 'params', label),
    query: route.query && compiler.compile(route.query, 'query', label),
    body: route.body && compiler.compile(route.body, 'body', label),
  };

  return async (ctx: HttpContext & { params?: Record<string, string> }): Promise<void> => {
    const errors: FieldError[] = [];
    const body = readBody(ctx, route, errors);
    const params = plainCopy(ctx.params);
    const query = plainCopy(ctx.query);
    if (inputs.params) errors.push(...inputs.params(params));
    if (inputs.query) errors.push(...inputs.query(query));
    if (inputs.body && body !== undefined) errors.push(...inputs.body(body));
    if (errors.length > 0) throw HttpProblem.validation(errors);

    const result = await route.definition.handler({
      params,
      query,
      body,
      ctx,
      log: ctx.state.log,
      requestId: ctx.state.requestId,
    });
    applyResult(ctx, result);
  };
}
