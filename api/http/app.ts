import Koa, { type Middleware } from 'koa';
import YAML from 'yaml';
import type { Logger } from '../../config/logger.js';
import { requireAuthentication, type Authentication } from './authentication.js';
import { jsonBody } from './body.js';
import type { IdempotencyStore } from './idempotency.js';
import { cors } from './cors.js';
import { errorHandler } from './error-handler.js';
import { buildOpenApiDocument, type OpenApiComponents, type OpenApiServer } from './openapi.js';
import { problemSchema } from './problem.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { httpMetrics } from './http-metrics.js';
import { httpTracing } from './http-tracing.js';
import { siteGuard } from './site-guard.js';
import { normalizeRoutes, type HttpState, type RouteDefinition } from './route.js';
import { buildRouter, methodsForPath, unmatchedRoute, type StaticEndpoint } from './router.js';
import { SchemaCompiler } from './validation.js';

export interface HttpAppOptions {
  title: string;
  version: string;
  description?: string;
  routes: readonly RouteDefinition[];
  logger: Logger;
  /**
   * The one other origin whose pages may read the answers (CORS) and change state, or `*` for
   * every origin; unset, no CORS headers are sent and only the service's own pages can do either.
   */
  corsOrigin?: string;
  /** Host names the service answers to besides loopback names and IP addresses (site-guard.ts). */
  allowedHosts?: readonly string[];
  bodyLimitBytes?: number;
  /** Where the OpenAPI document is served; a path ending in .yaml or .yml serves YAML. */
  openapiPaths?: string[];
  components?: OpenApiComponents;
  servers?: OpenApiServer[];
  /** Runs after body parsing and before the routes. */
  extraMiddleware?: Middleware<HttpState>[];
  /** How callers prove who they are (sign-in); unset, the app knows no callers. */
  authentication?: Authentication;
  /**
   * Whether non-public routes refuse callers without credentials (default true). False: the
   * schemes are still stated in the OpenAPI document, as accepted, not required.
   */
  authenticationRequired?: boolean;
  /** Descriptions of the route tags, for the OpenAPI document. */
  tags?: Record<string, string>;
  license?: { name: string; url?: string };
  /** Believe X-Forwarded-For and X-Forwarded-Proto: a reverse proxy in front sets them. */
  trustProxy?: boolean;
  /** Where the answers of `idempotent` routes are kept. */
  idempotency?: IdempotencyStore;
  /** Check every JSON answer against its route's response schema (CAIRN_VALIDATE_RESPONSES). */
  validateResponses?: boolean;
  /** The `service` label of its request metrics (`core`, later each companion service). */
  metricsName?: string;
}

export type HttpApp = Koa<HttpState>;

/** How a stream fails when its client has gone: the end of the stream, not an error. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED']);

function openapiEndpoints(paths: string[], document: object): StaticEndpoint[] {
  const json = JSON.stringify(document);
  // Fresh objects throughout, so no YAML anchors appear; aliases off to be sure.
  const yaml = YAML.stringify(document, { aliasDuplicateObjects: false });
  return paths.map((path) => {
    const isYaml = /\.ya?ml$/.test(path);
    return {
      path,
      handler: (ctx) => {
        ctx.type = isYaml ? 'application/yaml; charset=utf-8' : 'application/json; charset=utf-8';
        ctx.body = isYaml ? yaml : json;
      },
    };
  });
}

/**
 * Builds a Koa app from a route table. Everything is checked and compiled here, so a bad schema
 * or path fails at start-up, not on the first request.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const bodyLimitBytes = options.bodyLimitBytes ?? 1_000_000;
  const routes = normalizeRoutes(options.routes);
  const compiler = new SchemaCompiler({ Problem: problemSchema, ...options.components?.schemas });
  const document = buildOpenApiDocument({
    title: options.title,
    version: options.version,
    description: options.description,
    servers: options.servers,
    routes: options.routes,
    components: options.components,
    security: options.authentication && {
      schemes: options.authentication.securitySchemes,
      required: options.authenticationRequired ?? true,
    },
    tags: options.tags,
    license: options.license,
  });
  const router = buildRouter(routes, compiler, openapiEndpoints(options.openapiPaths ?? [], document), {
    validateResponses: options.validateResponses,
    idempotency: options.idempotency,
  });

  // The proxy in front appends the address it saw: the last one is the only one it vouches for.
  const app = new Koa<HttpState>({ proxy: options.trustProxy === true, maxIpsCount: 1 });
  app.use(requestId());
  app.use(httpTracing());
  app.use(requestLog(options.logger));
  app.use(httpMetrics(options.metricsName ?? 'core'));
  app.use(errorHandler());
  app.use(siteGuard({ allowedHosts: options.allowedHosts ?? [], allowedOrigin: options.corsOrigin }));
  if (options.corsOrigin)
    app.use(cors({ origin: options.corsOrigin, methodsFor: (path) => methodsForPath(router, path) }));
  if (options.authentication && (options.authenticationRequired ?? true)) {
    const publicIds = routes
      .filter((route) => route.definition.public)
      .map((route) => route.definition.operationId);
    app.use(requireAuthentication(options.authentication, router, publicIds));
  }
  app.use(jsonBody(bodyLimitBytes));
  for (const middleware of options.extraMiddleware ?? []) app.use(middleware);
  app.use(router.routes());
  app.use(unmatchedRoute(router));

  // Errors the middleware cannot answer (e.g. a stream failing after headers went out).
  app.on('error', (error: unknown) => {
    // A client that goes away in the middle of a stream (an SSE tab closed) is not a fault.
    const code = (error as { code?: string }).code;
    if (code !== undefined && CLIENT_GONE.has(code)) {
      options.logger.debug({ event: 'http.client_gone', code });
      return;
    }
    options.logger.error({ err: error }, 'http.stream_error');
  });
  return app;
}
