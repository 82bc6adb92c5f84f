import { createHash } from 'node:crypto';
import { HttpProblem } from './problem.js';
import type { HttpContext } from './route.js';
import type { IdempotencyOutcome, StoredAnswer } from '../../domain/idempotency.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set on an answer that repeats a stored one. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export type { StoredAnswer };

/** Where Idempotency-Key records live (services/idempotency for the core: the database). */
export interface IdempotencyStore {
  begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyOutcome>;
  /** Keeps the key of a request still being handled; called every `renewEveryMs`. */
  renew(scope: string, key: string, owner: string): Promise<void>;
  readonly renewEveryMs: number;
  finish(scope: string, key: string, owner: string, answer: StoredAnswer): Promise<void>;
  release(scope: string, key: string, owner: string): Promise<void>;
}

// Printable ASCII without spaces, as the IETF draft's examples and every client library send.
const KEY = /^[\x21-\x7e]{1,255}$/;
// Headers of an answer worth sending again with it.
const KEPT_HEADERS = ['location', 'link', 'content-type'];

/** JSON with object keys sorted, so the same body sent with other spacing or key order matches. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface IdempotentRequest {
  scope: string;
  key: string;
  fingerprint: string;
}

/** The request's key and what identifies it, or undefined when it sent no key. */
export function idempotentRequest(
  ctx: HttpContext,
  operationId: string,
  body: unknown,
): IdempotentRequest | undefined {
  const key = ctx.get(IDEMPOTENCY_HEADER);
  if (key === '') return undefined;
  if (!KEY.test(key)) {
    throw HttpProblem.validation([
      { path: '/headers/idempotency-key', message: 'must be 1 to 255 printable characters without spaces' },
    ]);
  }
  // Keys are the caller's own: another user's identical key is another request.
  const scope = `${operationId}:${ctx.state.principal?.name ?? ''}`;
  const fingerprint = createHash('sha256')
    .update(`${ctx.method} ${ctx.path}?${ctx.querystring}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
  return { scope, key, fingerprint };
}

/** Refuses a key in use or reused, or sends the stored answer; true when the request is handled. */
export function answerEarlierRequest(ctx: HttpContext, outcome: IdempotencyOutcome): boolean {
  if (outcome.kind === 'proceed') return false;
  if (outcome.kind === 'mismatch') {
    throw new HttpProblem({
      status: 422,
      code: 'idempotency_key_reused',
      detail: `This ${IDEMPOTENCY_HEADER} was used with another request; use a new key for a new request.`,
    });
  }
  if (outcome.kind === 'in_progress') {
    throw new HttpProblem({
      status: 409,
      code: 'idempotency_in_progress',
      detail: `A request with this ${IDEMPOTENCY_HEADER} is still being handled; try again in a moment.`,
      headers: { 'Retry-After': '1' },
    });
  }
  const { answer } = outcome;
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.set(REPLAYED_HEADER, 'true');
  if (answer.body !== null) {
    ctx.body = answer.body;
    ctx.type = answer.headers['content-type'] ?? 'application/json';
  }
  return true;
}

/** What to keep of a successful answer, or undefined for one not worth keeping (not a 2xx). */
export function answerToStore(ctx: HttpContext): StoredAnswer | undefined {
  if (ctx.status < 200 || ctx.status >= 300) return undefined;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = ctx.response.get(name);
    if (value) headers[name] = String(value);
  }
  return { status: ctx.status, headers, body: bodyText(ctx.body) };
}

/** A response body as the text that was sent: a shared body goes out as its UTF-8 bytes. */
function bodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return JSON.stringify(body);
}
