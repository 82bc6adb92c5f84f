import type { Middleware } from 'koa';
import { Histogram, register } from 'prom-client';
import type { HttpState } from './route.js';

// One histogram for every app of the process (the core, later the companion services), told apart
// by `service`; the route is the route table's template, never the raw path, so the series stay few.
const requests =
  (register.getSingleMetric('cairn_http_request_duration_seconds') as Histogram | undefined) ??
  new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'HTTP requests by service, method, route template and status, with their duration',
    labelNames: ['service', 'method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

/** Observes each request when its response is done (a stream: when it closes). */
export function httpMetrics(service: string): Middleware<HttpState> {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.res.once('close', () => {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      requests.observe(
        {
          service,
          method: ctx.method,
          route: typeof matched === 'string' ? matched : 'unmatched',
          status: String(ctx.res.statusCode),
        },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    return next();
  };
}
