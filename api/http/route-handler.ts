import { FORM_TYPES, hasBodyBytes, JSON_TYPES, parsedBody } from './body.js';
import { HttpProblem, type FieldError } from './problem.js';
import type { HttpContext, JsonSchema, NormalizedRoute, RouteResult } from './route.js';
import { SerializedJson } from './serialized-json.js';
import {
  answerEarlierRequest,
  answerToStore,
  idempotentRequest,
  type IdempotencyStore,
} from './idempotency.js';
import type { InputValidator, SchemaCompiler } from './validation.js';

interface CompiledInputs {
  params?: InputValidator;
  query?: InputValidator;
  flags: string[];
  body?: InputValidator;
}

export interface RouteHandlerOptions {
  /** Check each JSON answer against the route's response schema (tests, development). */
  validateResponses?: boolean;
  /** Where the answers of `idempotent` routes are kept; without it the header is ignored. */
  idempotency?: IdempotencyStore;
}

/** One validator per documented status with a JSON schema. */
function compileResponses(route: NormalizedRoute, compiler: SchemaCompiler, label: string) {
  const validators = new Map<number, InputValidator>();
  for (const [status, response] of Object.entries(route.definition.responses)) {
    const json = !response.contentType || /json/.test(response.contentType);
    if (response.schema && json)
      validators.set(Number(status), compiler.compile(response.schema, 'response', label));
  }
  return validators;
}

/**
 * A JSON answer that its OpenAPI schema does not describe is a bug in the handler: with
 * validation on it becomes a 500 whose log names the fields, so the test that made it fails.
 */
function checkResponse(
  validators: Map<number, InputValidator>,
  label: string,
  ctx: HttpContext,
  sent: unknown,
): void {
  const body = sent instanceof SerializedJson ? sent.value() : sent;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || 'pipe' in body) return;
  const validate = validators.get(ctx.status);
  if (!validate) throw new Error(`${label} answered ${ctx.status}, a status its responses do not list`);
  const errors = validate(body);
  if (errors.length > 0) {
    const found = errors.map((error) => `${error.path} ${error.message}`).join('; ');
    throw new Error(`${label} answered ${ctx.status} with a body its schema does not allow: ${found}`);
  }
}

// How people and tools write a yes/no query flag (`?include_deleted`, `=1`, `=yes`, `=on`).
const FLAG_SPELLINGS: Record<string, string> = {
  '': 'true',
  '1': 'true',
  yes: 'true',
  on: 'true',
  true: 'true',
  '0': 'false',
  no: 'false',
  off: 'false',
  false: 'false',
};

/** The boolean properties of a query schema: their usual spellings are read as true or false. */
function flagNames(schema: JsonSchema | undefined): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  return Object.entries(properties ?? {}).flatMap(([name, property]) =>
    property.type === 'boolean' ? [name] : [],
  );
}

function readFlags(query: Record<string, unknown>, flags: readonly string[]): void {
  for (const name of flags) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    const spelled = FLAG_SPELLINGS[value.trim().toLowerCase()];
    if (spelled !== undefined) query[name] = spelled;
  }
}

// Copies into a plain object: Object.fromEntries defines keys, so a `__proto__` key stays data.
function plainCopy(source: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(source ?? {}));
}

function readBody(ctx: HttpContext, route: NormalizedRoute, errors: FieldError[]): unknown {
  if (!route.body) return undefined;
  const form = route.bodyType === 'form';
  if (hasBodyBytes(ctx) && !ctx.is(form ? FORM_TYPES : JSON_TYPES)) {
    const sent = ctx.get('Content-Type') || 'none';
    const expected = form ? 'application/x-www-form-urlencoded' : 'application/json';
    throw HttpProblem.unsupportedMediaType(`Expected an ${expected} body, got content type ${sent}.`);
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
  if (result.body instanceof SerializedJson) {
    ctx.body = result.body.payload;
    ctx.type = 'application/json';
  } else if (result.body !== undefined) {
    ctx.body = result.body;
    if (result.type) ctx.type = result.type;
  }
  ctx.status = result.status ?? (result.body === undefined ? 204 : 200);
}

/** Koa middleware that validates a request against its route, runs the handler and writes the result. */
export function createRouteHandler(
  route: NormalizedRoute,
  compiler: SchemaCompiler,
  options: RouteHandlerOptions = {},
) {
  const label = `route ${route.definition.operationId}`;
  const responses = options.validateResponses ? compileResponses(route, compiler, label) : undefined;
  const inputs: CompiledInputs = {
    params: route.params && compiler.compile(route.params, 'params', label),
    query: route.query && compiler.compile(route.query, 'query', label),
    flags: flagNames(route.query),
    body: route.body && compiler.compile(route.body, 'body', label),
  };

  return async (ctx: HttpContext & { params?: Record<string, string> }): Promise<void> => {
    const errors: FieldError[] = [];
    const body = readBody(ctx, route, errors);
    const params = plainCopy(ctx.params);
    const query = plainCopy(ctx.query);
    readFlags(query, inputs.flags);
    if (inputs.params) errors.push(...inputs.params(params));
    if (inputs.query) errors.push(...inputs.query(query));
    if (inputs.body && body !== undefined) errors.push(...inputs.body(body));
    if (errors.length > 0) throw HttpProblem.validation(errors);

    const run = async () => {
      const result = await route.definition.handler({
        params,
        query,
        body,
        ctx,
        log: ctx.state.log,
        requestId: ctx.state.requestId,
      });
      applyResult(ctx, result);
      if (responses) checkResponse(responses, label, ctx, result?.body ?? ctx.body);
    };
    const store = options.idempotency;
    const request =
      store && route.definition.idempotent
        ? idempotentRequest(ctx, route.definition.operationId, body)
        : undefined;
    if (!store || !request) return run();
    const outcome = await store.begin(request.scope, request.key, request.fingerprint);
    if (answerEarlierRequest(ctx, outcome) || outcome.kind !== 'proceed') return;
    // A request that takes long (a clone) keeps its key: a retry must not take it over.
    const renewal = setInterval(
      () => void store.renew(request.scope, request.key, outcome.owner).catch(() => undefined),
      store.renewEveryMs,
    );
    try {
      await run();
    } catch (error) {
      await store.release(request.scope, request.key, outcome.owner);
      throw error;
    } finally {
      clearInterval(renewal);
    }
    const answer = answerToStore(ctx);
    if (answer) await store.finish(request.scope, request.key, outcome.owner, answer);
    else await store.release(request.scope, request.key, outcome.owner);
  };
}
