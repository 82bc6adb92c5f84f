import type { Authentication, HttpContext, HttpPrincipal } from '../http/index.js';
import { HttpProblem } from '../http/index.js';
import type { SignIn } from '../../services/auth/sign-in.js';
import { clearSessionCookie, PLAIN_NAME, readSessionCookie } from './session-cookie.js';
import { localPath } from './html-page.js';

export const SIGN_IN_PAGE = '/login';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The OpenAPI names of the two ways in, as the document states them. */
export const SIGN_IN_SECURITY_SCHEMES = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: PLAIN_NAME,
    description:
      'The session a browser gets from POST /api/auth/login or the /login page (named __Host-cairn_session under https).',
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'CAIRN_API_TOKEN, for API clients: `Authorization: Bearer <token>`.',
  },
};

/** The request a refusal answers: the request itself, or the one a reverse proxy forwarded. */
export interface RefusedRequest {
  method: string;
  /** Path and query. */
  url: string;
  acceptsHtml: boolean;
}

/** A browser asking for a page (not a script asking for data): it can be sent to sign in. */
function isPageRequest(request: RefusedRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  return !request.url.startsWith('/api/') && request.acceptsHtml;
}

/**
 * Answers a request that showed no valid credentials: a page goes to the sign-in page (and
 * back after), anything else is a 401. A cookie that did not pass (forged, expired, from before
 * a secret change) is dropped.
 */
export function refuseRequest(signIn: SignIn, ctx: HttpContext, request: RefusedRequest): void {
  if (readSessionCookie(ctx) !== undefined) clearSessionCookie(ctx);
  if (signIn.passwordSignIn && isPageRequest(request)) {
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`${SIGN_IN_PAGE}?next=${encodeURIComponent(localPath(request.url))}`);
    return;
  }
  throw new HttpProblem({
    status: 401,
    code: 'authentication_required',
    detail: signIn.passwordSignIn
      ? 'Sign in first (POST /api/auth/login or the /login page), or send the API token as `Authorization: Bearer <token>`.'
      : 'Send the API token (CAIRN_API_TOKEN) as `Authorization: Bearer <token>`.',
    headers: { 'WWW-Authenticate': 'Bearer realm="cairn"' },
  });
}

export const acceptsHtml = (ctx: HttpContext) => ctx.accepts('html', 'json') === 'html';

/** Who the request is, from its bearer token or its session cookie. */
export async function principalOf(signIn: SignIn, ctx: HttpContext): Promise<HttpPrincipal | undefined> {
  const authorization = ctx.get('Authorization');
  // A request that names a token is judged by it alone: a wrong token is not rescued by a cookie.
  if (authorization) {
    const token = BEARER.exec(authorization)?.[1];
    return token === undefined ? undefined : signIn.principalForToken(token);
  }
  return signIn.sessionFor(readSessionCookie(ctx));
}

/** The sign-in as the HTTP kit's Authentication: a session cookie or CAIRN_API_TOKEN. */
export function signInAuthentication(signIn: SignIn): Authentication {
  return {
    securitySchemes: SIGN_IN_SECURITY_SCHEMES,
    authenticate: (ctx) => principalOf(signIn, ctx),
    refuse: (ctx) =>
      refuseRequest(signIn, ctx, { method: ctx.method, url: ctx.url, acceptsHtml: acceptsHtml(ctx) }),
  };
}
