import { toOpenApiSchema } from './openapi-schema.js';
import { PROBLEM_CONTENT_TYPE, PROBLEM_SCHEMA_REF, problemSchema } from './problem.js';
import {
  normalizeRoutes,
  type JsonSchema,
  type NormalizedRoute,
  type ResponseHeaderSpec,
  type RouteDefinition,
} from './route.js';

type JsonObject = Record<string, unknown>;

export interface OpenApiServer {
  url: string;
  description?: string;
}

export interface OpenApiComponents {
  schemas?: Record<string, JsonSchema>;
}

/** How clients authenticate when sign-in is on: OpenAPI security schemes, any one of which will do. */
export type OpenApiSecuritySchemes = Record<string, JsonObject>;

/** How clients prove who they are, and whether the API insists (sign-in on). */
export interface OpenApiSecurity {
  schemes: OpenApiSecuritySchemes;
  required: boolean;
}

export interface OpenApiOptions {
  /** Routes marked `public` never need credentials; the others do when `required`. */
  security?: OpenApiSecurity;
  /** Descriptions of the tags the routes use. */
  tags?: Record<string, string>;
  license?: { name: string; url?: string };
  title: string;
  version: string;
  description?: string;
  servers?: OpenApiServer[];
  routes: readonly RouteDefinition[];
  components?: OpenApiComponents;
}

export interface OpenApiDocument extends JsonObject {
  openapi: '3.0.3';
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, JsonObject>>;
  components: {
    schemas: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    securitySchemes?: Record<string, JsonObject>;
  };
}

/** The kit's own problem responses, described once under components.responses. */
const STANDARD_RESPONSES: Record<string, { status: number; description: string }> = {
  BadRequest: {
    status: 400,
    description: 'Invalid input: validation_failed, invalid_json or invalid_cursor.',
  },
  Unauthorized: {
    status: 401,
    description: 'Sign-in is on and the request showed no valid session or token (authentication_required).',
  },
  Forbidden: {
    status: 403,
    description:
      'Refused for where it came from: a Host the service does not answer to (host_not_allowed), or a state change sent by another site (cross_site_request).',
  },
  NotFound: { status: 404, description: 'No such resource (not_found).' },
  PayloadTooLarge: { status: 413, description: 'The body is over the size limit (payload_too_large).' },
  UnsupportedMediaType: { status: 415, description: 'The body is not JSON (unsupported_media_type).' },
  IdempotencyInProgress: {
    status: 409,
    description: 'A request with this Idempotency-Key is still being handled (idempotency_in_progress).',
  },
  IdempotencyKeyReused: {
    status: 422,
    description: 'This Idempotency-Key came with another request (idempotency_key_reused).',
  },
  InternalError: { status: 500, description: 'An unexpected server error (internal_error).' },
};

function standardResponsesFor(route: NormalizedRoute, secured: boolean): string[] {
  const names = ['Forbidden', 'InternalError'];
  if (route.params || route.query || route.body) names.push('BadRequest');
  if (secured && !route.definition.public) names.push('Unauthorized');
  if (route.definition.idempotent) names.push('IdempotencyInProgress', 'IdempotencyKeyReused');
  if (route.pathParams.length > 0) names.push('NotFound');
  if (route.body) names.push('PayloadTooLarge', 'UnsupportedMediaType');
  return names;
}

function parameters(schema: JsonSchema | undefined, location: 'path' | 'query', where: string): JsonObject[] {
  if (!schema) return [];
  if (!schema.properties) throw new Error(`${where}: a ${location} schema must be an object with properties`);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, deprecated, ...rest } = toOpenApiSchema(property, `${where}/${location}/${name}`);
    return {
      name,
      in: location,
      // A query value with a default is required by the schema (so handlers get it typed as
      // present) but not of the client: the validator fills it in.
      required: location === 'path' || (required.has(name) && property.default === undefined),
      ...(description === undefined ? {} : { description }),
      ...(deprecated === undefined ? {} : { deprecated }),
      schema: rest,
    };
  });
}

function responseHeaders(headers: Record<string, ResponseHeaderSpec>, where: string): JsonObject {
  return Object.fromEntries(
    Object.entries(headers).map(([name, { description, schema }]) => [
      name,
      { description, schema: toOpenApiSchema(schema, `${where}/headers/${name}`) },
    ]),
  );
}

function responses(route: NormalizedRoute, where: string, secured: boolean): JsonObject {
  const out: JsonObject = {};
  for (const [status, spec] of Object.entries(route.definition.responses)) {
    const contentType = spec.contentType ?? (spec.schema ? 'application/json' : undefined);
    const media = spec.schema ? { schema: toOpenApiSchema(spec.schema, `${where}/responses/${status}`) } : {};
    out[status] = {
      description: spec.description,
      ...(spec.headers ? { headers: responseHeaders(spec.headers, `${where}/responses/${status}`) } : {}),
      ...(contentType ? { content: { [contentType]: media } } : {}),
    };
  }
  for (const name of standardResponsesFor(route, secured)) {
    const status = String(STANDARD_RESPONSES[name]?.status);
    out[status] ??= { $ref: `#/components/responses/${name}` };
  }
  return out;
}

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets ' +
    'the first answer, with `Idempotent-Replayed: true`, and does nothing again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const BODY_MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

function operation(route: NormalizedRoute, secured: boolean): JsonObject {
  const definition = route.definition;
  const where = `${definition.operationId}`;
  const params = [...parameters(route.params, 'path', where), ...parameters(route.query, 'query', where)];
  if (definition.idempotent) params.push(IDEMPOTENCY_PARAMETER);
  return {
    operationId: definition.operationId,
    summary: definition.summary,
    ...(definition.description ? { description: definition.description } : {}),
    ...(definition.tags?.length ? { tags: definition.tags } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.bodyRequired,
            content: {
              [BODY_MEDIA_TYPES[route.bodyType]]: { schema: toOpenApiSchema(route.body, `${where}/body`) },
            },
          },
        }
      : {}),
    // An empty list lifts the document's requirement: anyone may call it.
    ...(secured && definition.public ? { security: [] } : {}),
    responses: responses(route, where, secured),
  };
}

function componentResponses(): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(STANDARD_RESPONSES).map(([name, { description }]) => [
      name,
      { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: PROBLEM_SCHEMA_REF } } } },
    ]),
  );
}

/** Builds the OpenAPI 3.0.3 document from the same route table the app serves. */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const routes = normalizeRoutes(options.routes);
  const security = options.security;
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, security !== undefined);
  }
  const schemas: Record<string, JsonObject> = { Problem: toOpenApiSchema(problemSchema, 'Problem') };
  for (const [name, schema] of Object.entries(options.components?.schemas ?? {})) {
    schemas[name] = toOpenApiSchema(schema, `#/components/schemas/${name}`);
  }
  const tags = [...new Set(routes.flatMap((route) => route.definition.tags ?? []))].sort();
  // Any one scheme will do; `{}` as well (anonymous) while sign-in is off.
  const requirements = security
    ? [...Object.keys(security.schemes).map((name) => ({ [name]: [] })), ...(security.required ? [] : [{}])]
    : undefined;
  return {
    openapi: '3.0.3',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
      ...(options.license ? { license: options.license } : {}),
    },
    // Relative: the document describes the server that serves it, under whatever name it is asked.
    servers: options.servers?.length ? options.servers : [{ url: '/', description: 'this server' }],
    ...(tags.length > 0
      ? {
          tags: tags.map((name) => ({
            name,
            ...(options.tags?.[name] ? { description: options.tags[name] } : {}),
          })),
        }
      : {}),
    ...(requirements ? { security: requirements } : {}),
    paths,
    components: {
      schemas,
      responses: componentResponses(),
      ...(security ? { securitySchemes: security.schemes } : {}),
    },
  };
}
