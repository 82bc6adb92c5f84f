import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HttpProblem } from './problem.js';
import type { HttpContext, HttpState } from './route.js';

/** application/json and any +json type (application/merge-patch+json, ...). */
export const JSON_TYPES = ['json', '+json'];
/** An HTML form's body. */
export const FORM_TYPES = ['urlencoded'];

/** The methods whose bodies are read. */
const PARSED_METHODS = [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH];
const IS_PARSED = new Set<string>(PARSED_METHODS);

interface BodyError extends Error {
  type?: string;
  status?: number;
}

/** Turns what raw-body and co-body throw while reading a body into client problems. */
function toBodyProblem(error: BodyError, limitBytes: number): Error {
  if (error.type === 'entity.too.large' || error.status === 413)
    return HttpProblem.payloadTooLarge(limitBytes);
  if (error instanceof SyntaxError) {
    return new HttpProblem({
      status: 400,
      code: 'invalid_json',
      detail: 'The request body is not valid JSON.',
    });
  }
  if (error.status === 415 || error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return HttpProblem.unsupportedMediaType('The request body encoding or charset is not supported.');
  }
  if (error.type === 'request.aborted' || error.type === 'request.size.invalid') {
    return HttpProblem.badRequest('The request body was incomplete.');
  }
  // Anything else while reading the body is the client's bytes, e.g. a "gzip" body that is not.
  return HttpProblem.badRequest('The request body could not be read or decoded.');
}

/**
 * Parses JSON and HTML-form bodies of POST, PUT and PATCH up to `limitBytes` (each route accepts
 * only its own type: route-handler.ts). Non-strict parsing so that an empty body stays ''
 * (missing) rather than {}. The raw text is kept on ctx.request.rawBody for signature checks.
 */
export function jsonBody(limitBytes: number): Middleware<HttpState> {
  const parse = koaBody({
    json: true,
    jsonLimit: limitBytes,
    jsonStrict: false,
    jsonTypes: JSON_TYPES,
    urlencoded: true,
    formLimit: limitBytes,
    text: false,
    multipart: false,
    includeUnparsed: true,
    parsedMethods: PARSED_METHODS,
    onError: (error) => {
      throw toBodyProblem(error, limitBytes);
    },
  });
  return (ctx, next) => {
    // Another method's body is never read: it goes on without the parser's own await.
    if (!IS_PARSED.has(ctx.method)) return next();
    refuseOtherCharsets(ctx);
    return parse(ctx, next);
  };
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * JSON is UTF-8 (RFC 8259), and the body parser reads it so whatever the header says: a body
 * declared in another charset would be read wrongly, so it is refused with 415 instead.
 */
function refuseOtherCharsets(ctx: HttpContext): void {
  const charset = CHARSET.exec(ctx.get('Content-Type'))?.[1]?.toLowerCase();
  if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return;
  if (!hasBodyBytes(ctx) || !ctx.is(JSON_TYPES)) return;
  throw HttpProblem.unsupportedMediaType(
    `The request body is declared as ${charset}; send JSON as UTF-8 (or without a charset).`,
  );
}

/** True when the request carries body bytes, whatever their type. */
export function hasBodyBytes(ctx: HttpContext): boolean {
  if (ctx.get('Transfer-Encoding') !== '') return true;
  return Number(ctx.get('Content-Length') || 0) > 0;
}

/** The parsed JSON body, or undefined when none was sent. */
export function parsedBody(ctx: HttpContext): unknown {
  const body: unknown = ctx.request.body;
  return body === '' ? undefined : body;
}
