import type { Middleware } from 'koa';
import { codeForStatus, HttpProblem, PROBLEM_CONTENT_TYPE } from './problem.js';
import type { HttpState } from './route.js';
import { ServiceError, type ServiceErrorKind } from '../../services/service-error.js';

const STATUS_OF_KIND: Record<ServiceErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
};

interface StatusError {
  status?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/**
 * Maps a thrown value to the problem the client sees. HttpProblem passes through, a service's
 * refusal becomes its 4xx; a 4xx error
 * another library marked safe to expose (http-errors, ctx.throw) keeps its message; everything
 * else is a generic 500.
 */
export function toHttpProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof ServiceError) {
    return new HttpProblem({
      status: STATUS_OF_KIND[error.kind],
      code: error.code,
      detail: error.detail,
      errors: error.errors,
      extra: error.extra,
      headers:
        error.retryAfterSeconds === undefined
          ? undefined
          : { 'Retry-After': String(error.retryAfterSeconds) },
    });
  }
  const candidate = (typeof error === 'object' && error !== null ? error : {}) as StatusError;
  const status = candidate.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && candidate.expose === true) {
    const headers =
      typeof candidate.headers === 'object' && candidate.headers !== null
        ? (candidate.headers as Record<string, string>)
        : undefined;
    return new HttpProblem({
      status,
      code: codeForStatus(status),
      detail: String(candidate.message),
      headers,
    });
  }
  return HttpProblem.internal();
}

/** Renders every error below it as application/problem+json; 5xx are logged with the request id. */
export function errorHandler(): Middleware<HttpState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const problem = toHttpProblem(error);
      if (problem.status >= 500) {
        ctx.state.log.error({ err: error, status: problem.status, path: ctx.path }, 'http.unhandled_error');
      }
      if (ctx.headerSent || !ctx.writable) return;
      ctx.set(problem.headers);
      ctx.status = problem.status;
      ctx.body = problem.toDocument(ctx.path);
      ctx.type = PROBLEM_CONTENT_TYPE;
    }
  };
}
