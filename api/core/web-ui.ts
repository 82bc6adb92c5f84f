import type { Middleware } from 'koa';
import type { HttpContext, HttpState } from '../http/index.js';
import type { WebFile } from './web-ui-files.js';

/**
 * Paths the page never answers, not even with its deep-link fallback: the API, the probes, the
 * webhooks and the sign-in pages keep their own answers (and their own 404s).
 */
const SERVER_PATHS = /^\/(api|health|metrics|webhooks|login|logout|verify)(\/|$)/;

// The page loads only its own scripts and talks only to this origin; the graph library sets
// inline styles, so styles may be inline.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'Cache-Control': 'no-cache',
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

const ASSET_HEADERS = {
  // Hashed names: a new build has new names, so an old name never changes.
  'Cache-Control': 'public, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
};

function send(ctx: HttpContext, file: WebFile): void {
  const encoding = ctx.acceptsEncodings(
    ...['br', 'gzip'].filter((name) => file[name as 'br' | 'gzip']),
    'identity',
  );
  const body = encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : undefined;
  ctx.set(file.immutable ? ASSET_HEADERS : PAGE_HEADERS);
  ctx.set('Vary', 'Accept-Encoding');
  if (body) ctx.set('Content-Encoding', encoding as string);
  ctx.type = file.type;
  ctx.body = body ?? file.identity;
}

/**
 * Serves the built web page (dist/web) at `/`: its hashed assets cached for good and sent
 * precompressed, and the page itself for every other page address (deep links such as
 * /runs/{id}), which the page's router resolves, its not-found page included. The file-reading
 * code is loaded on the first page request, not at start-up. Runs after the sign-in check, so
 * with sign-in on a deep link first goes to /login. Not built (a production install without the
 * dev dependencies, or WEB_UI_DEV): the request goes on to the plain home page or a 404.
 */
export function webUi(dir: string): Middleware<HttpState> {
  let files: Promise<Map<string, WebFile> | undefined> | undefined;
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || SERVER_PATHS.test(ctx.path)) return next();
    files ??= import('./web-ui-files.js').then((module) => module.readWebFiles(dir));
    const built = await files;
    const file =
      built?.get(ctx.path) ??
      (ctx.path.startsWith('/assets/') || ctx.accepts('html') !== 'html'
        ? undefined
        : built?.get('/index.html'));
    if (!file) return next();
    send(ctx, file);
  };
}
