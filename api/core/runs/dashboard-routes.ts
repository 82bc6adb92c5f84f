import {
  defineRoute,
  defineRoutes,
  page,
  pageQueryProperties,
  type RouteDefinition,
} from '../../http/index.js';
import type { Database } from '../../../db/connection.js';
import {
  codebaseNames,
  countRunsByStatus,
  endedNodeCounts,
  searchRuns,
} from '../../../db/repositories/run-dashboard.js';
import { RUN_STATUSES, type WorkflowRun } from '../../../db/repositories/workflow-runs.js';
import { runFilterProperties, runFilters, type RunFilterQuery } from './run-query.js';
import { runView } from './run-view.js';

const PAGE = { default: 25, max: 200 };

interface DashboardQuery extends RunFilterQuery {
  q?: string;
  limit: number;
}

function nodesTotal(run: WorkflowRun): number {
  const nodes = (run.definition as { nodes?: unknown }).nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
}

function durationMs(run: WorkflowRun, now: number): number | null {
  if (!run.startedAt) return null;
  return (run.completedAt ? Date.parse(run.completedAt) : now) - Date.parse(run.startedAt);
}

/** Runs for the dashboard: each with its codebase, progress, duration and cost, plus counts per status. */
export function dashboardRoutes(db: Database): RouteDefinition[] {
  const statusCounts = {
    type: 'object',
    properties: Object.fromEntries(RUN_STATUSES.map((status) => [status, { type: 'integer' }])),
  };
  return defineRoutes(
    defineRoute<{ query: DashboardQuery }>({
      method: 'GET',
      path: '/api/dashboard/runs',
      operationId: 'dashboardRuns',
      summary: 'Workflow runs enriched for the dashboard, with counts per status',
      tags: ['runs'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...runFilterProperties,
          q: {
            type: 'string',
            maxLength: 200,
            description: 'text in the workflow name, message or codebase name',
          },
          ...pageQueryProperties(PAGE),
        },
      },
      responses: {
        200: {
          description: 'a page of runs',
          schema: {
            type: 'object',
            required: ['items', 'counts'],
            properties: {
              items: {
                type: 'array',
                items: {
                  allOf: [
                    { $ref: '#/components/schemas/WorkflowRun' },
                    {
                      type: 'object',
                      properties: {
                        codebaseName: { type: 'string', nullable: true },
                        nodesDone: { type: 'integer' },
                        nodesTotal: { type: 'integer' },
                        durationMs: { type: 'integer', nullable: true },
                      },
                    },
                  ],
                },
              },
              nextCursor: { type: 'string' },
              counts: statusCounts,
            },
          },
        },
      },
      handler: async ({ query }) => {
        const filters = runFilters(query);
        const { since, until } = filters;
        const search = query.q?.trim() || undefined;
        const rows = await searchRuns(db.knex, { ...filters, search, limit: query.limit + 1 });
        const result = page(rows, query.limit, (run) => [run.createdAt, run.id]);
        const [ended, names, counts] = await Promise.all([
          endedNodeCounts(
            db.knex,
            result.items.map((run) => run.id),
          ),
          codebaseNames(
            db.knex,
            result.items.flatMap((run) => (run.codebaseId ? [run.codebaseId] : [])),
          ),
          countRunsByStatus(db.knex, { since, until, search }),
        ]);
        const now = Date.now();
        const items = result.items.map((run) => ({
          ...runView(run),
          codebaseName: run.codebaseId ? (names.get(run.codebaseId) ?? null) : null,
          nodesDone: ended.get(run.id) ?? 0,
          nodesTotal: nodesTotal(run),
          durationMs: durationMs(run, now),
        }));
        return { body: { items, ...(result.nextCursor ? { nextCursor: result.nextCursor } : {}), counts } };
      },
    }),
  );
}
