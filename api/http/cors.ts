import type { Middleware } from 'koa';
import { REQUEST_ID_HEADER } from './request-id.js';
import type { HttpState } from './route.js';

export interface CorsOptions {
  /** `*` or one exact origin, e.g. `http://localhost:5173`. */
  origin: string;
  /** Methods served at a path, for the preflight answer; empty for an unknown path. */
  methodsFor: (path: string) => string[];
  maxAgeSeconds?: number;
}

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const DEFAULT_ALLOWED_HEADERS = ['Content-Type', 'Authorization', REQUEST_ID_HEADER, 'Last-Event-ID'];
// Requested header names are echoed back only when they are plain header tokens.
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/**
 * CORS for every response, and the answer to every OPTIONS request (a preflight) before any
 * 404/405 logic runs.
 */
export function cors(options: CorsOptions): Middleware<HttpState> {
  const maxAge = String(options.maxAgeSeconds ?? 600);
  return (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', options.origin);
    // A fixed origin still varies by Origin for caches sitting between several front ends.
    if (options.origin !== '*') ctx.vary('Origin');
    ctx.set('Access-Control-Expose-Headers', REQUEST_ID_HEADER);

    if (ctx.method !== 'OPTIONS') return next();
    const known = options.methodsFor(ctx.path);
    const methods = [...(known.length > 0 ? known : DEFAULT_METHODS), 'OPTIONS'];
    const requested = ctx.get('Access-Control-Request-Headers');
    ctx.vary('Access-Control-Request-Headers');
    ctx.set({
      Allow: methods.join(', '),
      'Access-Control-Allow-Methods': methods.join(', '),
      'Access-Control-Allow-Headers': HEADER_LIST.test(requested)
        ? requested
        : DEFAULT_ALLOWED_HEADERS.join(', '),
      'Access-Control-Max-Age': maxAge,
    });
    ctx.status = 204;
  };
}
