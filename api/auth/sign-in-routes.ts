import {
  defineRoute,
  defineRoutes,
  Nullable,
  NullableStringEnum,
  problemResponse,
  StrictObject,
  Type,
  type RouteDefinition,
} from '../http/index.js';
import type { SignIn } from '../../services/auth/sign-in.js';
import { endBrowserSession, startBrowserSession } from './session-cookie.js';

/** What a sign-in form sends; bounded so a huge "password" costs nothing before the check. */
export const credentialFields = {
  username: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
};

const SignInAnswer = StrictObject({
  username: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});

const SignInState = StrictObject({
  signInRequired: Type.Boolean({ description: 'the API refuses requests without a session or the token' }),
  passwordSignIn: Type.Boolean({ description: 'a browser can sign in with a username and password' }),
  signedIn: Type.Boolean(),
  user: Nullable(Type.String()),
  via: NullableStringEnum(['session', 'token'], { description: 'how this request proved who it is' }),
  expiresAt: Nullable(Type.String({ format: 'date-time', description: "when this request's session ends" })),
});

const tooMany = problemResponse(
  'too_many_sign_in_attempts: a sixth try from this address within a minute (Retry-After says when to try again)',
);

/** Sign in, sign out, and who am I: the JSON side of the optional sign-in (the pages call the same service). */
export function signInRoutes(signIn: SignIn): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'POST',
      path: '/api/auth/login',
      operationId: 'signIn',
      summary: 'Sign in with the username and password; the answer sets the session cookie',
      description:
        'A wrong username and a wrong password get the same answer in the same time. Five tries per ' +
        'client address per minute; the sixth is refused with 429.',
      tags: ['sign-in'],
      public: true,
      body: StrictObject(credentialFields),
      responses: {
        200: { description: 'signed in: the Set-Cookie header carries the session', schema: SignInAnswer },
        401: problemResponse('sign_in_failed: the username or the password is wrong'),
        404: problemResponse('sign_in_not_configured: this server has no password sign-in'),
        429: tooMany,
      },
      handler: async ({ body, ctx }) => {
        const session = await startBrowserSession(signIn, ctx, body);
        return { body: { username: session.username, expiresAt: session.expiresAt } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/auth/logout',
      operationId: 'signOut',
      summary: 'End this browser session (everywhere it is used) and drop its cookie',
      tags: ['sign-in'],
      public: true,
      responses: { 204: { description: 'signed out (also when there was no session)' } },
      handler: ({ ctx }) => endBrowserSession(signIn, ctx),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/auth/session',
      operationId: 'getSignInSession',
      summary: 'Whether sign-in is on, and who this request is',
      tags: ['sign-in'],
      public: true,
      responses: { 200: { description: 'the sign-in state', schema: SignInState } },
      handler: ({ ctx }) => {
        const principal = ctx.state.principal;
        const expiresAt = (principal as { expiresAt?: string } | undefined)?.expiresAt ?? null;
        return {
          body: {
            signInRequired: signIn.required,
            passwordSignIn: signIn.passwordSignIn,
            signedIn: principal !== undefined,
            user: principal?.name ?? null,
            via: (principal?.via as 'session' | 'token' | undefined) ?? null,
            expiresAt,
          },
        };
      },
    }),
  );
}
