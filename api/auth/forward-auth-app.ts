import {
  createHttpApp,
  defineRoute,
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  problemResponse,
  StrictObject,
  StringEnum,
  type HttpApp,
} from '../http/index.js';
import type { Logger } from '../../config/logger.js';
import type { SignIn } from '../../services/auth/sign-in.js';
import { acceptsHtml, principalOf, refuseRequest } from './sign-in-authentication.js';

export interface ForwardAuthOptions {
  signIn: SignIn;
  version: string;
  logger: Logger;
  allowedHosts: readonly string[];
}

/** The header that tells the API behind the proxy who the request is. */
export const FORWARDED_USER_HEADER = 'X-Cairn-User';

/**
 * The spec's auth service (AUTH_SERVICE_PORT): a reverse proxy asks it about every request
 * before passing it on (Caddy's forward_auth, Traefik's ForwardAuth, nginx's auth_request). It
 * judges the same session cookie and API token as the API, from the same database.
 */
export function createForwardAuthApp(options: ForwardAuthOptions): HttpApp {
  const { signIn } = options;
  return createHttpApp({
    title: 'Cairn forward-auth service',
    version: options.version,
    description: 'Answers a reverse proxy whether a request may pass.',
    logger: options.logger.child({ component: 'forward-auth' }),
    allowedHosts: options.allowedHosts,
    // The same trust as the API's, so both look for the same cookie name (https or not).
    trustProxy: signIn.settings.trustProxy,
    openapiPaths: ['/openapi.json'],
    routes: [
      defineRoute({
        method: 'GET',
        path: '/verify',
        operationId: 'verifyForwardedRequest',
        summary: 'May the request the proxy holds pass? (X-Forwarded-Method and X-Forwarded-Uri name it)',
        description:
          'Answers 200 with X-Cairn-User when the request carries a live session cookie or the API token; ' +
          'otherwise sends a page request to the sign-in page (303) and anything else a 401.',
        tags: ['sign-in'],
        public: true,
        responses: {
          200: { description: 'pass it on' },
          303: { description: 'a browser page without a session: to the sign-in page' },
          401: problemResponse('authentication_required'),
        },
        handler: async ({ ctx }) => {
          const principal = await principalOf(signIn, ctx);
          if (principal) return { status: 200, headers: { [FORWARDED_USER_HEADER]: principal.name } };
          const url = ctx.get('X-Forwarded-Uri') || '/';
          try {
            refuseRequest(signIn, ctx, {
              method: ctx.get('X-Forwarded-Method') || 'GET',
              url,
              acceptsHtml: acceptsHtml(ctx),
            });
            return undefined;
          } catch (error) {
            if (!(error instanceof HttpProblem)) throw error;
            // The client sees this answer for the request it made, so the problem names that one.
            return {
              status: error.status,
              headers: error.headers,
              type: PROBLEM_CONTENT_TYPE,
              body: error.toDocument(url.split('?')[0]),
            };
          }
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/health',
        operationId: 'getHealth',
        summary: 'Liveness',
        public: true,
        responses: { 200: { description: 'alive', schema: StrictObject({ status: StringEnum(['ok']) }) } },
        handler: () => ({ body: { status: 'ok' } }),
      }),
    ],
  });
}
