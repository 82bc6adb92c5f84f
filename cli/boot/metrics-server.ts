import type { Database } from '../../db/connection.js';
import { CoreMetrics } from '../../services/metrics/core-metrics.js';
import { activityDependencies } from './activity-dependencies.js';
import type { CairnContext } from './context.js';
import { serveHttp, type ListeningService } from './http-server.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * METRICS_PORT: `GET /metrics` on a port of its own, open without sign-in (a scraper inside the
 * deployment's network needs no token), in any role: the one way to scrape a `cairn worker`,
 * which serves no other HTTP. Everything else on that port is a 404.
 */
export async function startMetricsServer(
  context: CairnContext,
  db: Database,
  lifecycle: Lifecycle,
  options: { port: number; sdkMetricsUrl?: string },
): Promise<ListeningService> {
  const metrics = new CoreMetrics({
    context: activityDependencies(context, db),
    maxConcurrent: context.config.effective.concurrency.maxConversations,
    sdkMetricsUrl: options.sdkMetricsUrl,
  });
  return serveHttp(
    'metrics',
    (request, response) => {
      if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
        return;
      }
      metrics.text().then(
        (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
      );
    },
    { host: context.environment.server.host, port: options.port },
    lifecycle,
  );
}
