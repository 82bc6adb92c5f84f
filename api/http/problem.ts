import { STATUS_CODES } from 'node:http';
import type { JsonSchema } from './route.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Problem `type` scheme: `https://cairn.dev/problems/<code>`, where <code> is the stable snake_case
 * `code` member (`validation_failed`, `not_found`, ...). The URI names the problem type; it is an
 * identifier and need not resolve. Clients should branch on `code`.
 */
export const PROBLEM_TYPE_BASE = 'https://cairn.dev/problems/';

/** One failing input field: `path` is a JSON Pointer rooted at the request part, e.g. `/body/message`. */
export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const TITLES: Record<string, string> = {
  bad_request: 'Bad request',
  validation_failed: 'Validation failed',
  invalid_json: 'Invalid JSON',
  invalid_cursor: 'Invalid cursor',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  unprocessable_entity: 'Unprocessable entity',
  too_many_requests: 'Too many requests',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
};

const CODES_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The stable code for a bare HTTP status, e.g. from ctx.throw(404) or another library's error. */
export function codeForStatus(status: number): string {
  const known = CODES_BY_STATUS[status];
  if (known) return known;
  const phrase = STATUS_CODES[status] ?? (status >= 500 ? 'internal error' : 'bad request');
  return phrase.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/** The only detail a 500 ever carries: internal messages and stacks stay in the log. */
export const INTERNAL_DETAIL = 'An unexpected error occurred; it has been logged with the request id.';

const CORE_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'instance', 'errors']);

export interface HttpProblemInit {
  status: number;
  code: string;
  detail: string;
  title?: string;
  errors?: FieldError[];
  /** Extra problem members (RFC 9457 extensions), e.g. `{ currentState: 'running' }`. */
  extra?: Record<string, unknown>;
  /** Response headers that belong to the problem, e.g. Allow on a 405. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** Thrown by handlers (and the kit) to answer with an application/problem+json response. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(init: HttpProblemInit) {
    super(init.detail, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'HttpProblem';
    this.status = init.status;
    this.code = init.code;
    this.title = init.title ?? TITLES[init.code] ?? STATUS_CODES[init.status] ?? 'Error';
    this.detail = init.detail;
    this.errors = init.errors;
    this.extra = init.extra ?? {};
    this.headers = init.headers ?? {};
  }

  static badRequest(detail: string, errors?: FieldError[]): HttpProblem {
    return new HttpProblem({ status: 400, code: 'bad_request', detail, errors });
  }

  static validation(errors: FieldError[], detail = 'The request is invalid; see errors.'): HttpProblem {
    return new HttpProblem({ status: 400, code: 'validation_failed', detail, errors });
  }

  static unauthorized(detail = 'Authentication is required.'): HttpProblem {
    return new HttpProblem({ status: 401, code: 'unauthorized', detail });
  }

  static forbidden(detail: string): HttpProblem {
    return new HttpProblem({ status: 403, code: 'forbidden', detail });
  }

  static notFound(detail: string): HttpProblem {
    return new HttpProblem({ status: 404, code: 'not_found', detail });
  }

  static methodNotAllowed(method: string, allowed: string[]): HttpProblem {
    return new HttpProblem({
      status: 405,
      code: 'method_not_allowed',
      detail: `${method} is not allowed here; allowed: ${allowed.join(', ')}.`,
      headers: { Allow: allowed.join(', ') },
    });
  }

  static conflict(detail: string, extra?: Record<string, unknown>): HttpProblem {
    return new HttpProblem({ status: 409, code: 'conflict', detail, extra });
  }

  static payloadTooLarge(limitBytes: number): HttpProblem {
    return new HttpProblem({
      status: 413,
      code: 'payload_too_large',
      detail: `The request body exceeds the limit of ${limitBytes} bytes.`,
    });
  }

  static unsupportedMediaType(detail: string): HttpProblem {
    return new HttpProblem({ status: 415, code: 'unsupported_media_type', detail });
  }

  static unprocessable(detail: string, errors?: FieldError[]): HttpProblem {
    return new HttpProblem({ status: 422, code: 'unprocessable_entity', detail, errors });
  }

  static tooManyRequests(detail: string, retryAfterSeconds?: number): HttpProblem {
    const headers =
      retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(retryAfterSeconds) };
    return new HttpProblem({ status: 429, code: 'too_many_requests', detail, headers });
  }

  static internal(): HttpProblem {
    return new HttpProblem({ status: 500, code: 'internal_error', detail: INTERNAL_DETAIL });
  }

  toDocument(instance?: string): ProblemDocument {
    const extensions = Object.fromEntries(
      Object.entries(this.extra).filter(([key]) => !CORE_MEMBERS.has(key)),
    );
    return {
      ...extensions,
      type: PROBLEM_TYPE_BASE + this.code,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(instance === undefined ? {} : { instance }),
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }
}

/** The `Problem` component every generated OpenAPI document carries. */
export const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: `${PROBLEM_TYPE_BASE}<code>` },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 100, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable snake_case problem code.', pattern: '^[a-z0-9_]+$' },
    instance: { type: 'string', description: 'The request path.' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', description: 'JSON Pointer of the failing field, e.g. /body/message.' },
          message: { type: 'string' },
        },
      },
    },
  },
  additionalProperties: true,
};

export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** A response entry for a route table: `responses: { 409: problemResponse('The run is not paused.') }`. */
export function problemResponse(description: string): {
  description: string;
  schema: JsonSchema;
  contentType: string;
} {
  return { description, schema: { $ref: PROBLEM_SCHEMA_REF }, contentType: PROBLEM_CONTENT_TYPE };
}
