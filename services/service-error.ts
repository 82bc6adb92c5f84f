/**
 * Why a service refused a request, in terms every door understands: the API answers it as
 * problem+json with the matching status, the CLI and the chat adapters print the detail. Services
 * never know about HTTP; the kinds map one to one onto 4xx statuses in api/http/error-handler.ts.
 */
export type ServiceErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable';

/** One input at fault: a JSON Pointer rooted at the request part (`/query/cwd`) and why. */
export interface ServiceFieldError {
  path: string;
  message: string;
}

export interface ServiceErrorInit {
  kind: ServiceErrorKind;
  /** Stable snake_case code clients branch on (`cwd_not_allowed`, `conversation_deleted`). */
  code: string;
  detail: string;
  errors?: ServiceFieldError[];
  /** Extra members for the client, e.g. `{ currentState: 'running' }`. */
  extra?: Record<string, unknown>;
  /** When trying again can succeed (rate_limited, unavailable): after this many seconds. */
  retryAfterSeconds?: number;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly kind: ServiceErrorKind;
  readonly code: string;
  readonly errors?: ServiceFieldError[];
  readonly extra: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(init: ServiceErrorInit) {
    super(init.detail);
    this.kind = init.kind;
    this.code = init.code;
    this.errors = init.errors;
    this.extra = init.extra ?? {};
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  get detail(): string {
    return this.message;
  }

  static notFound(detail: string, code = 'not_found'): ServiceError {
    return new ServiceError({ kind: 'not_found', code, detail });
  }

  static conflict(detail: string, extra?: Record<string, unknown>, code = 'conflict'): ServiceError {
    return new ServiceError({ kind: 'conflict', code, detail, extra });
  }

  static invalid(code: string, detail: string, errors?: ServiceFieldError[]): ServiceError {
    return new ServiceError({ kind: 'invalid', code, detail, errors });
  }
}
