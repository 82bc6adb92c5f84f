import { defineRoute, defineRoutes, pageQueryProperties, type RouteDefinition } from '../../http/index.js';
import { RUN_STATUSES } from '../../../domain/runs/run-status.js';
import type { ServiceContext } from '../../../services/context.js';
import { dashboardRuns, type DashboardRun } from '../../../services/runs/run-reads.js';
import { pageBody, runFilterProperties, runFilters, type RunFilterQuery } from './run-query.js';
import { runView } from './run-view.js';

const PAGE = { default: 25, max: 200 };

interface DashboardQuery extends RunFilterQuery {
  q?: string;
  limit: number;
}

const dashboardView = ({ run, ...progress }: DashboardRun) => ({
  ...runView(run),
  codebaseName: progress.codebaseName,
  nodesDone: progress.nodesDone,
  nodesTotal: progress.nodesTotal,
  durationMs: progress.durationMs,
});

/** Runs for the dashboard: each with its codebase, progress, duration and cost, plus counts per status. */
export function dashboardRoutes(context: ServiceContext): RouteDefinition[] {
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
        const search = query.q?.trim() || undefined;
        const result = await dashboardRuns(context, { ...runFilters(query), search });
        return { body: { ...pageBody(result, dashboardView), counts: result.counts } };
      },
    }),
  );
}
