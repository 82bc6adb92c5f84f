import type { Middleware } from 'koa';
import { isIP } from 'node:net';
import { RecentCache } from '../../config/recent-cache.js';
import { HttpProblem } from './problem.js';
import type { HttpState } from './route.js';

/**
 * Which sites may drive the API. It has no sign-in by default and starts assistants with shell
 * access, so a web page the user happens to visit must not be able to use it:
 * - a page served under another name that resolves to this machine (DNS rebinding) sends that
 *   name as Host: only known names pass;
 * - a page of another origin can send a form or a fetch that changes state without reading the
 *   answer: a state-changing request whose Origin is another site is refused.
 */
export interface SitePolicy {
  /**
   * Host names that may address the service besides `localhost`, `*.localhost` and IP addresses
   * (which no rebinding can forge): the machine's name, DOMAIN, ALLOWED_HOSTS. `*` allows any.
   */
  allowedHosts: readonly string[];
  /** The other origin allowed to change state (WEB_UI_ORIGIN); `*` allows every origin. */
  allowedOrigin?: string;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The host name of a Host header or an origin's host, lower-cased, without port or brackets. */
function nameOf(host: string): string | undefined {
  try {
    const name = new URL(`http://${host}`).hostname.toLowerCase();
    return name.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function hostAllowed(name: string, allowed: ReadonlySet<string>): boolean {
  if (allowed.has('*') || allowed.has(name)) return true;
  if (isIP(name) !== 0) return true;
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The origin's host (name and port) when it is a web origin; undefined for `null` and junk. */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function originAllowed(origin: string, host: string, policy: SitePolicy): boolean {
  if (policy.allowedOrigin === '*' || origin === policy.allowedOrigin) return true;
  // The page was served by this service itself: its origin names the host it was asked under.
  return originHost(origin) === host.toLowerCase();
}

/** Refuses requests under an unknown host name, and state changes from other sites, with 403. */
export function siteGuard(policy: SitePolicy): Middleware<HttpState> {
  const allowedHosts = new Set(policy.allowedHosts.map((host) => host.trim().toLowerCase()).filter(Boolean));
  // A service is asked under a handful of Host values: each is parsed once, not per request.
  const verdicts = new RecentCache<string, boolean>(64);
  const hostPasses = (host: string) => {
    let verdict = verdicts.get(host);
    if (verdict === undefined) {
      const name = nameOf(host);
      verdict = name !== undefined && hostAllowed(name, allowedHosts);
      verdicts.set(host, verdict);
    }
    return verdict;
  };
  return (ctx, next) => {
    const host = ctx.get('Host');
    // HTTP/1.0 clients may leave Host out; a browser never does.
    if (host && !hostPasses(host)) {
      throw new HttpProblem({
        status: 403,
        code: 'host_not_allowed',
        detail: `This service does not answer to the host name ${JSON.stringify(host)}. Add it to ALLOWED_HOSTS if it is yours.`,
      });
    }
    const origin = ctx.get('Origin');
    if (origin && STATE_CHANGING.has(ctx.method) && !originAllowed(origin, host, policy)) {
      throw new HttpProblem({
        status: 403,
        code: 'cross_site_request',
        detail: `A page of ${JSON.stringify(origin)} may not change anything here. Set WEB_UI_ORIGIN to that origin if it is your web UI.`,
      });
    }
    return next();
  };
}
