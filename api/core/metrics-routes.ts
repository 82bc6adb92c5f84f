import { defineRoute, type RouteDefinition } from '../http/route.js';
import type { CoreMetrics } from '../../services/metrics/core-metrics.js';

/**
 * `GET /metrics` in Prometheus text format. Not public: with sign-in on, a scraper sends the API
 * token (Prometheus: `authorization: {credentials: ...}`).
 */
export function metricsRoute(metrics: CoreMetrics): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Metrics for Prometheus: requests, turns, runs, approvals, streams, chat, Temporal workers',
    tags: ['health'],
    responses: {
      200: { description: 'the metrics, Prometheus text format 0.0.4', contentType: 'text/plain' },
    },
    handler: async () => ({ body: await metrics.text(), type: metrics.contentType }),
  });
}
