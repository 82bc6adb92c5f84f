export { createHttpApp, type HttpApp, type HttpAppOptions } from './app.js';
export { type Authentication } from './authentication.js';
export {
  decodeCursor,
  encodeCursor,
  page,
  pageLimit,
  pageQueryProperties,
  pageSchema,
  type CursorShape,
  type CursorValue,
  type Page,
  type PageLimitOptions,
} from './cursor.js';
export { toHttpProblem } from './error-handler.js';
export { SerializedJson, serializedOnce } from './serialized-json.js';
export { nextPageLink, nextPageLinkHeader } from './link-header.js';
export {
  buildOpenApiDocument,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiOptions,
  type OpenApiSecuritySchemes,
  type OpenApiServer,
} from './openapi.js';
export { toOpenApiSchema } from './openapi-schema.js';
export {
  AnyObject,
  ComponentRef,
  DateTime,
  Nullable,
  NullableStringEnum,
  StrictObject,
  StringEnum,
  StringMap,
  Type,
  type Static,
  type TSchema,
} from './schema.js';
export {
  codeForStatus,
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_SCHEMA_REF,
  PROBLEM_TYPE_BASE,
  problemResponse,
  problemSchema,
  type FieldError,
  type HttpProblemInit,
  type ProblemDocument,
} from './problem.js';
export { REQUEST_ID_HEADER } from './request-id.js';
export { siteGuard, type SitePolicy } from './site-guard.js';
export {
  defineRoute,
  defineRoutes,
  HTTP_METHODS,
  type HttpContext,
  type HttpMethod,
  type HttpPrincipal,
  type HttpState,
  type JsonSchema,
  type ResponseHeaderSpec,
  type ResponseSpec,
  type RouteContext,
  type RouteDefinition,
  type RouteResult,
  type RouteTypes,
} from './route.js';
