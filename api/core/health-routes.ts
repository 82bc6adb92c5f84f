import { defineRoutes, type RouteDefinition } from '../http/route.js';
import type { ServiceContext } from '../../services/context.js';
import { databaseReachable, serviceFigures, turnConcurrency } from '../../services/health/health.js';

export interface HealthDependencies {
  version: string;
  /** The assistant-session limit (MAX_CONCURRENT_CONVERSATIONS). */
  maxConcurrent: number;
  /** Adapters switched on: always `web`, plus chat and code-host platforms with credentials. */
  adapters: string[];
}

const concurrencySchema = {
  type: 'object',
  required: ['active', 'queued', 'maxConcurrent'],
  properties: {
    active: { type: 'integer', description: 'assistant turns running now' },
    queued: { type: 'integer', description: 'messages waiting for a free assistant session' },
    maxConcurrent: { type: 'integer' },
  },
};

export function healthRoutes(context: ServiceContext, deps: HealthDependencies): RouteDefinition[] {
  const unknownConcurrency = { active: 0, queued: 0, maxConcurrent: deps.maxConcurrent };
  return defineRoutes(
    {
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness: the process answers HTTP',
      tags: ['health'],
      responses: {
        200: {
          description: 'alive',
          schema: {
            type: 'object',
            required: ['status'],
            properties: { status: { type: 'string', enum: ['ok'] } },
          },
        },
      },
      handler: () => ({ body: { status: 'ok' } }),
    },
    {
      method: 'GET',
      path: '/health/db',
      operationId: 'getDatabaseHealth',
      summary: 'Database connectivity',
      tags: ['health'],
      responses: {
        200: { description: 'reachable', schema: { $ref: '#/components/schemas/DatabaseHealth' } },
        503: { description: 'unreachable', schema: { $ref: '#/components/schemas/DatabaseHealth' } },
      },
      handler: async () => {
        const ok = await databaseReachable(context);
        return {
          status: ok ? 200 : 503,
          body: { status: ok ? 'ok' : 'error', database: context.db.dialect },
        };
      },
    },
    {
      method: 'GET',
      path: '/health/concurrency',
      operationId: 'getConcurrencyHealth',
      summary: 'Assistant sessions running and queued, and the limit',
      tags: ['health'],
      responses: {
        503: { description: 'the database cannot be reached' },
        200: {
          description: 'current figures',
          schema: {
            ...concurrencySchema,
            required: ['status', ...concurrencySchema.required],
            properties: { status: { type: 'string' }, ...concurrencySchema.properties },
          },
        },
      },
      handler: async () => {
        const figures = await turnConcurrency(context, deps.maxConcurrent);
        // The figures live in the database: without it they are unknown, not zero.
        if (!figures) return { status: 503, body: { status: 'error', ...unknownConcurrency } };
        return { body: { status: 'ok', ...figures } };
      },
    },
    {
      method: 'GET',
      path: '/api/health',
      operationId: 'getApiHealth',
      summary: 'Service health with adapters, concurrency and running workflows',
      tags: ['health'],
      responses: {
        200: {
          description: 'service health',
          schema: {
            type: 'object',
            required: [
              'status',
              'adapter',
              'adapters',
              'concurrency',
              'runningWorkflows',
              'version',
              'database',
            ],
            properties: {
              status: { type: 'string', enum: ['ok', 'degraded'] },
              adapter: { type: 'string', description: 'the adapter serving this API (web)' },
              adapters: {
                type: 'array',
                items: { type: 'string' },
                description: 'every adapter switched on',
              },
              concurrency: concurrencySchema,
              runningWorkflows: { type: 'integer', description: 'workflow runs in status running' },
              version: { type: 'string' },
              database: { type: 'string', enum: ['sqlite', 'postgres'] },
            },
          },
        },
      },
      handler: async () => {
        const figures = await serviceFigures(context, deps.maxConcurrent);
        const base = {
          adapter: 'web',
          adapters: deps.adapters,
          version: deps.version,
          database: context.db.dialect,
        };
        if (!figures) {
          return {
            body: { status: 'degraded', ...base, concurrency: unknownConcurrency, runningWorkflows: 0 },
          };
        }
        return { body: { status: 'ok', ...base, ...figures } };
      },
    },
  );
}

export const healthComponents = {
  DatabaseHealth: {
    type: 'object',
    required: ['status', 'database'],
    properties: {
      status: { type: 'string', enum: ['ok', 'error'] },
      database: { type: 'string', enum: ['sqlite', 'postgres'] },
    },
  },
};
