import type { HttpContext } from '../http/index.js';
import type { NewSession, SignIn } from '../../services/auth/sign-in.js';

// Under https the cookie takes the __Host- prefix: browsers then refuse it unless it is Secure,
// has Path=/ and no Domain, so no sibling subdomain can plant or shadow it.
export const PLAIN_NAME = 'cairn_session';
const SECURE_NAME = '__Host-cairn_session';

/** The session cookie's name for this request's scheme (https is known through TRUST_PROXY). */
export function sessionCookieName(ctx: HttpContext): string {
  return ctx.secure ? SECURE_NAME : PLAIN_NAME;
}

export function readSessionCookie(ctx: HttpContext): string | undefined {
  return ctx.cookies.get(sessionCookieName(ctx)) || undefined;
}

function write(ctx: HttpContext, value: string, maxAgeSeconds: number): void {
  const attributes = [
    `${sessionCookieName(ctx)}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    // Expires as well, for the few clients that ignore Max-Age.
    `Expires=${new Date(Date.now() + maxAgeSeconds * 1000).toUTCString()}`,
    'HttpOnly',
    // Lax: sent when the user follows a link here (from chat, an email), never with another
    // site's form post or fetch.
    'SameSite=Lax',
  ];
  if (ctx.secure) attributes.push('Secure');
  ctx.append('Set-Cookie', attributes.join('; '));
}

/** Sends the session cookie; its value is base64url and a dot, safe in a cookie as it is. */
function setSessionCookie(ctx: HttpContext, value: string, maxAgeSeconds: number): void {
  write(ctx, value, maxAgeSeconds);
}

export function clearSessionCookie(ctx: HttpContext): void {
  write(ctx, '', 0);
}

/** Checks the credentials and, when they pass, opens a session and sends its cookie. */
export async function startBrowserSession(
  signIn: SignIn,
  ctx: HttpContext,
  credentials: { username: string; password: string },
): Promise<NewSession> {
  const session = await signIn.signIn(credentials.username, credentials.password, ctx.ip);
  setSessionCookie(ctx, session.cookieValue, session.maxAgeSeconds);
  return session;
}

/** Ends the request's session everywhere and drops its cookie; harmless without one. */
export async function endBrowserSession(signIn: SignIn, ctx: HttpContext): Promise<void> {
  await signIn.signOut(readSessionCookie(ctx));
  clearSessionCookie(ctx);
}
