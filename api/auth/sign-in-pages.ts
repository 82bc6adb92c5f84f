import {
  defineRoute,
  defineRoutes,
  StrictObject,
  toHttpProblem,
  Type,
  type RouteDefinition,
} from '../http/index.js';
import type { HttpContext } from '../http/index.js';
import type { SignIn } from '../../services/auth/sign-in.js';
import { ServiceError } from '../../services/service-error.js';
import { escapeHtml, htmlPage, localPath, seeOther } from './html-page.js';
import { endBrowserSession, startBrowserSession } from './session-cookie.js';
import { credentialFields } from './sign-in-routes.js';
import { SIGN_IN_PAGE } from './sign-in-authentication.js';

const nextField = Type.String({ maxLength: 2048, description: 'the page of this site to return to' });
const htmlAnswer = (description: string) => ({ description, contentType: 'text/html' });

function signInForm(next: string, problem?: string): string {
  return `<h1>Sign in to Cairn</h1>
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${SIGN_IN_PAGE}">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required maxlength="255" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`;
}

const NOT_CONFIGURED = `<h1>Sign-in is not set up</h1>
<p>This server has no password sign-in. Set AUTH_USERNAME, AUTH_PASSWORD_HASH and COOKIE_SECRET
to require one (see docs/operations.md).</p>`;

/** A refused sign-in shown on the form again: the same words whichever half was wrong. */
function refusedPage(error: ServiceError, next: string, ctx: HttpContext) {
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
  return htmlPage('Sign in · Cairn', signInForm(next, error.detail), toHttpProblem(error).status);
}

/** The sign-in and sign-out pages: plain HTML forms that work without JavaScript. */
export function signInPages(signIn: SignIn): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: SIGN_IN_PAGE,
      operationId: 'showSignInPage',
      summary: 'The sign-in page (HTML)',
      tags: ['sign-in'],
      public: true,
      query: StrictObject({ next: Type.Optional(nextField) }),
      responses: {
        200: htmlAnswer('the sign-in form'),
        303: { description: 'already signed in: on to `next`' },
        404: htmlAnswer('this server has no password sign-in'),
      },
      handler: ({ query, ctx }) => {
        const next = localPath(query.next);
        if (!signIn.passwordSignIn) return htmlPage('Sign-in · Cairn', NOT_CONFIGURED, 404);
        if (ctx.state.principal?.via === 'session') return seeOther(next);
        return htmlPage('Sign in · Cairn', signInForm(next));
      },
    }),
    defineRoute({
      method: 'POST',
      path: SIGN_IN_PAGE,
      operationId: 'submitSignInForm',
      summary: 'Sign in from the HTML form; on success, on to `next` with the session cookie',
      tags: ['sign-in'],
      public: true,
      bodyType: 'form',
      body: StrictObject({ ...credentialFields, next: Type.Optional(nextField) }),
      responses: {
        303: { description: 'signed in: on to `next` (or /), with the session cookie' },
        401: htmlAnswer('the form again, saying the username or password is wrong'),
        404: htmlAnswer('this server has no password sign-in'),
        429: htmlAnswer('the form again, saying when to try again'),
      },
      handler: async ({ body, ctx }) => {
        const next = localPath(body.next);
        try {
          await startBrowserSession(signIn, ctx, body);
          return seeOther(next);
        } catch (error) {
          if (error instanceof ServiceError) return refusedPage(error, next, ctx);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/logout',
      operationId: 'submitSignOutForm',
      summary: 'Sign out from a page; on to the sign-in page',
      tags: ['sign-in'],
      public: true,
      responses: { 303: { description: 'signed out: on to the sign-in page' } },
      handler: async ({ ctx }) => {
        await endBrowserSession(signIn, ctx);
        return seeOther(SIGN_IN_PAGE);
      },
    }),
  );
}
