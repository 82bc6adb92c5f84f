import { defineRoute, type RouteDefinition } from '../http/index.js';
import { escapeHtml, htmlPage } from '../auth/html-page.js';

/**
 * What a browser finds at `/` until the web dashboard is built: where the API is and, when
 * signed in, who you are and a way out. Not public: with sign-in on, it leads to the sign-in page.
 */
export function homePage(version: string): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/',
    operationId: 'showHomePage',
    summary: 'The home page (HTML)',
    tags: ['sign-in'],
    responses: { 200: { description: 'the home page', contentType: 'text/html' } },
    handler: ({ ctx }) => {
      const principal = ctx.state.principal;
      const signedIn =
        principal?.via === 'session'
          ? `<p>Signed in as <strong>${escapeHtml(principal.name)}</strong>.</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>`
          : '';
      return htmlPage(
        'Cairn',
        `<h1>Cairn ${escapeHtml(version)}</h1>
<p>The service is running. The web dashboard is not part of this release yet; the API is described
at <a href="/api/openapi.json">/api/openapi.json</a>.</p>
${signedIn}`,
      );
    },
  });
}
