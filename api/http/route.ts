import type { Static, TSchema } from '@sinclair/typebox';
import type { ParameterizedContext } from 'koa';
import type { Logger } from '../../config/logger.js';
import type { SerializedJson } from './serialized-json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type BodyType = 'json' | 'form';

export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A JSON Schema (draft-07, as ajv reads it). Shared schemas are referenced as
 * `{ $ref: '#/components/schemas/Name' }`, the same pointer the OpenAPI document uses.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  $ref?: string;
  description?: string;
  [keyword: string]: unknown;
}

/** Who a request acts for, once authentication (authentication.ts) has accepted it. */
export interface HttpPrincipal {
  name: string;
  /** How it proved it: `session` (a signed-in browser), `token` (an API client), ... */
  via: string;
}

/** What every request carries in ctx.state, set by the kit's first middleware. */
export interface HttpState {
  requestId: string;
  log: Logger;
  /** Set when the request showed valid credentials; unset without sign-in or on a public route. */
  principal?: HttpPrincipal;
}

export type HttpContext = ParameterizedContext<HttpState>;

/** The compile-time shapes of a route's validated input, derived from its schemas. */
export interface RouteTypes {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

type Field<T, K extends string, Fallback> = T extends { [P in K]: infer V } ? V : Fallback;

export interface RouteContext<T extends RouteTypes = RouteTypes> {
  /** Path parameters, validated and coerced (an integer schema yields a number). */
  params: Field<T, 'params', Record<string, unknown>>;
  /** Query parameters, validated, coerced and with schema defaults applied. */
  query: Field<T, 'query', Record<string, unknown>>;
  /** The validated JSON body; undefined when the route has none or an optional one was not sent. */
  body: Field<T, 'body', unknown>;
  ctx: HttpContext;
  log: Logger;
  requestId: string;
}

/** The type a TypeBox schema describes; `Fallback` for a route without that schema. */
type StaticOf<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

/**
 * Literal types widened (`'ok'` to string): TypeScript types a handler's answer before it knows
 * which route it belongs to, so enum values would not match. Fields and their types are still
 * checked here; the exact values, enums included, are checked at run time against the schema.
 */
type WidenLiterals<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer E)[]
        ? WidenLiterals<E>[]
        : T extends object
          ? { [K in keyof T]: WidenLiterals<T[K]> }
          : T;

/** What a route's responses allow as a body: their schemas' types, text for a schema-less media type. */
type ResponseBody<R> = WidenLiterals<
  {
    [K in keyof R]: R[K] extends { schema: infer S }
      ? StaticOf<S, unknown>
      : R[K] extends { contentType: string }
        ? string
        : undefined;
  }[keyof R]
>;

/** A body as a value, or already serialized (see SerializedJson). */
type AnswerBody<R> = ResponseBody<R> | SerializedJson<ResponseBody<R>>;

export interface RouteResult {
  /** Defaults to 200, or 204 when there is no body. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Content-Type for non-JSON bodies (strings, buffers, streams). */
  type?: string;
}

/** A response header as the OpenAPI document describes it. */
export interface ResponseHeaderSpec {
  description: string;
  schema: JsonSchema;
}

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** Headers the response may carry, by name (e.g. `Link` on a paged list). */
  headers?: Record<string, ResponseHeaderSpec>;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
}

export interface RouteDefinition<T extends RouteTypes = RouteTypes> {
  method: HttpMethod;
  /** OpenAPI style: `/api/codebases/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** Object schema of the path parameters; when omitted every path parameter is a string. */
  params?: JsonSchema;
  /** Object schema of the query string. */
  query?: JsonSchema;
  /** Schema of the body (POST, PUT and PATCH only). */
  body?: JsonSchema;
  /** Defaults to true when `body` is given. */
  bodyRequired?: boolean;
  /**
   * `json` (the default), or `form` for an HTML form's application/x-www-form-urlencoded body
   * (whose values are all strings). Each route takes only its own: anything else is a 415.
   */
  bodyType?: BodyType;
  /** Reachable without credentials when sign-in is on (health, the sign-in pages, webhooks). */
  public?: boolean;
  /**
   * Honours an `Idempotency-Key` header: a repeat of a request answered in the last 24 h gets
   * the same answer and does nothing (api/http/idempotency.ts).
   */
  idempotent?: boolean;
  responses: Record<number, ResponseSpec>;
  /**
   * Returns what to send. Returning nothing after setting ctx.body (a stream, e.g. SSE) or
   * ctx.respond = false leaves the response to the handler; returning nothing otherwise is a 204.
   * Method syntax on purpose: it keeps typed routes assignable to RouteDefinition.
   */
  handler(input: RouteContext<T>): Promise<RouteResult | undefined | void> | RouteResult | undefined | void;
}

/** A route whose input and answer types come from its TypeBox schemas. */
export interface TypedRouteDefinition<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  Required extends boolean,
  R extends Record<number, ResponseSpec>,
> extends Omit<RouteDefinition, 'params' | 'query' | 'body' | 'bodyRequired' | 'responses' | 'handler'> {
  params?: P;
  query?: Q;
  body?: B;
  bodyRequired?: Required;
  responses: R;
  handler(
    input: RouteContext<{
      params: StaticOf<P, Record<string, string>>;
      query: StaticOf<Q, Record<string, unknown>>;
      body: true extends Required ? StaticOf<B, undefined> : StaticOf<B, undefined> | undefined;
    }>,
  ):
    | Promise<(RouteResult & { body?: AnswerBody<R> }) | undefined | void>
    | (RouteResult & { body?: AnswerBody<R> })
    | undefined
    | void;
}

/**
 * Types a single route from its schemas, so each shape is written once: the handler's params,
 * query and body are what the schemas validate, and the body it answers must be what one of its
 * responses describes. The result fits any route list.
 */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  Required extends boolean = true,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
>(route: TypedRouteDefinition<P, Q, B, Required, R>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export function defineRoutes(...routes: RouteDefinition[]): RouteDefinition[] {
  return routes;
}

/** A route checked at registration, with the details both Koa and OpenAPI need. */
export interface NormalizedRoute {
  definition: RouteDefinition;
  method: HttpMethod;
  path: string;
  /** The same path in @koa/router (path-to-regexp v8) syntax. */
  routerPath: string;
  pathParams: string[];
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  bodyRequired: boolean;
  bodyType: BodyType;
}

const PATH_PARAM = /\{([^{}/]+)\}/g;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// path-to-regexp v8 gives these meaning; a literal one must be escaped.
const RESERVED = /[()[\]?+!*:{}\\]/g;

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(PATH_PARAM)].map((match) => match[1] as string);
}

export function toRouterPath(path: string): string {
  let out = '';
  let last = 0;
  for (const match of path.matchAll(PATH_PARAM)) {
    const name = match[1] as string;
    out += path.slice(last, match.index).replace(RESERVED, '\\$&');
    out += IDENTIFIER.test(name) ? `:${name}` : `:${JSON.stringify(name)}`;
    last = match.index + match[0].length;
  }
  return out + path.slice(last).replace(RESERVED, '\\$&');
}

function checkParams(route: RouteDefinition, names: string[]): JsonSchema | undefined {
  const where = `route ${route.operationId} (${route.method} ${route.path})`;
  if (!route.params) {
    if (names.length === 0) return undefined;
    const properties = Object.fromEntries(names.map((name) => [name, { type: 'string' }]));
    return { type: 'object', properties, required: names, additionalProperties: false };
  }
  const declared = Object.keys(route.params.properties ?? {});
  const missing = names.filter((name) => !declared.includes(name));
  const extra = declared.filter((name) => !names.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`${where}: params schema must declare exactly the path parameters {${names.join(', ')}}`);
  }
  // A path parameter is always present once the route matched; say so for OpenAPI.
  return { ...route.params, required: names };
}

export function normalizeRoute(route: RouteDefinition): NormalizedRoute {
  const where = `route ${route.operationId} (${route.method} ${route.path})`;
  if (!HTTP_METHODS.includes(route.method)) throw new Error(`${where}: unsupported method`);
  if (!route.path.startsWith('/')) throw new Error(`${where}: path must start with /`);
  if (!route.operationId) throw new Error(`${where}: operationId is required`);
  if (Object.keys(route.responses).length === 0)
    throw new Error(`${where}: at least one response is required`);
  if (route.body && (route.method === 'GET' || route.method === 'DELETE')) {
    // Bodies are only parsed for POST, PUT and PATCH.
    throw new Error(`${where}: a ${route.method} route cannot take a body`);
  }
  const pathParams = pathParamNames(route.path);
  return {
    definition: route,
    method: route.method,
    path: route.path,
    routerPath: toRouterPath(route.path),
    pathParams,
    params: checkParams(route, pathParams),
    query: route.query,
    body: route.body,
    bodyRequired: route.body ? (route.bodyRequired ?? true) : false,
    bodyType: route.bodyType ?? 'json',
  };
}

/** Normalizes a whole table, refusing duplicate operationIds and duplicate method + path pairs. */
export function normalizeRoutes(routes: readonly RouteDefinition[]): NormalizedRoute[] {
  const operationIds = new Set<string>();
  const endpoints = new Set<string>();
  return routes.map((route) => {
    const normalized = normalizeRoute(route);
    const endpoint = `${route.method} ${route.path.replace(PATH_PARAM, '{}')}`;
    if (operationIds.has(route.operationId)) throw new Error(`duplicate operationId ${route.operationId}`);
    if (endpoints.has(endpoint)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    operationIds.add(route.operationId);
    endpoints.add(endpoint);
    return normalized;
  });
}
