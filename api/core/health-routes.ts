import { defineRoutes, type RouteDefinition } from '../http/route.js';
import type { Database } from '../../db/connection.js';
import { countTurns } from '../../db/repositories/messages.js';
import { countRunsWithStatus } from '../../db/repositories/workflow-runs.js';

export interface HealthDependencies {
  db: Database;
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

/** Concurrency read from the database, so every API replica reports the same exact figures. */
async function concurrency(deps: HealthDependencies) {
  const turns = await countTurns(deps.db.knex);
  return { active: turns.active, queued: turns.queued, maxConcurrent: deps.maxConcurrent };
}

async function databaseReachable(db: Database): Promise<boolean> {
  try {
    await db.knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

export function healthRoutes(deps: HealthDependencies): RouteDefinition[] {
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
        const ok = await databaseReachable(deps.db);
        return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'error', database: deps.db.dialect } };
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
        try {
          return { body: { status: 'ok', ...(await concurrency(deps)) } };
        } catch {
          // The figures live in the database: without it they are unknown, not zero.
          return {
            status: 503,
            body: { status: 'error', active: 0, queued: 0, maxConcurrent: deps.maxConcurrent },
          };
        }
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
        const base = {
          adapter: 'web',
          adapters: deps.adapters,
          version: deps.version,
          database: deps.db.dialect,
        };
        try {
          const [figures, runningWorkflows] = await Promise.all([
            concurrency(deps),
            countRunsWithStatus(deps.db.knex, 'running'),
          ]);
          return { body: { status: 'ok', ...base, concurrency: figures, runningWorkflows } };
        } catch {
          return {
            body: {
              status: 'degraded',
              ...base,
              concurrency: { active: 0, queued: 0, maxConcurrent: deps.maxConcurrent },
              runningWorkflows: 0,
            },
          };
        }
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
