import { defineRoute, type RouteDefinition } from '../http/index.js';
import { escapeHtml, htmlPage } from '../auth/html-page.js';

/**
 * `/`: the web page (dist/web, served by web-ui.ts before the routes). This route answers only when
 * the page is not there (WEB_UI_DEV, where Vite's dev server serves it, or a build without the dev
 * dependencies): where the API is and, when signed in, who you are and a way out. Not public:
 * with sign-in on, it leads to the sign-in page.
 */
export function homePage(version: string): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/',
    operationId: 'showHomePage',
    summary: 'The web page (HTML); its deep links (/runs/{id}, ...) answer the same page',
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
<p>The service is running. The web page is not served here: it is not built (<code>npm run build</code>
builds it), or WEB_UI_DEV hands it to Vite's dev server. The API is described at
<a href="/api/openapi.json">/api/openapi.json</a>.</p>
${signedIn}`,
      );
    },
  });
}
