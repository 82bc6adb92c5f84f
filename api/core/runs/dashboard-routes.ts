import type { TInteger } from '@sinclair/typebox';
import {
  ComponentRef,
  DateTime,
  defineRoute,
  defineRoutes,
  Nullable,
  StrictObject,
  Type,
  type RouteDefinition,
  type Static,
} from '../../http/index.js';
import { RUN_STATUSES, type RunStatus } from '../../../domain/runs/run-status.js';
import { MAX_NAME_LENGTH } from '../../../domain/workflow-definitions/types.js';
import type { ServiceContext } from '../../../services/context.js';
import { dashboardRuns } from '../../../services/runs/run-reads.js';
import { pageBody, runFilterProperties, runFilters, runPageProperties } from './run-query.js';
import { NodeTimeLimit, runJsonColumns, WorkflowRun } from './run-view.js';

const PAGE = { default: 25, max: 200 };

/** A run as the dashboard lists it: the run's own fields, then its codebase, progress and duration. */
const DashboardRunSchema = StrictObject({
  ...WorkflowRun.properties,
  codebaseName: Nullable(Type.String()),
  nodesDone: Type.Integer(),
  nodesTotal: Type.Integer(),
  durationMs: Nullable(Type.Integer()),
  lastEventAt: Nullable(DateTime({ description: "the time of the run's latest event" })),
});

/** The running runs' node limits, by run id (an object whose keys are run ids). */
const NodeLimitsByRun = Type.Unsafe<Record<string, Static<typeof NodeTimeLimit>[]>>({
  type: 'object',
  description:
    "for each running run of the page, its nodes' effective timeouts: quiet for longer than the longest allows, it has likely stalled",
  additionalProperties: Type.Array(ComponentRef('NodeTimeLimit', NodeTimeLimit)),
});

/** Runs per status, every status listed (zero when none). */
const StatusCounts = StrictObject(
  Object.fromEntries(RUN_STATUSES.map((status) => [status, Type.Integer()])) as Record<RunStatus, TInteger>,
);

/** Runs for the dashboard: each with its codebase, progress, duration and cost, plus counts per status. */
export function dashboardRoutes(context: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/runs',
      operationId: 'dashboardRuns',
      summary: 'Workflow runs enriched for the dashboard, with counts per status',
      description:
        'The counts per status follow every filter but `status` itself (workflow, codebase, dates, text), so they say how many runs each status button would show.',
      tags: ['runs'],
      query: StrictObject({
        ...runFilterProperties,
        q: Type.Optional(
          Type.String({ maxLength: 200, description: 'text in the workflow name, message or codebase name' }),
        ),
        workflow: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: MAX_NAME_LENGTH,
            description: 'runs of this workflow (its exact name)',
          }),
        ),
        codebase_id: Type.Optional(
          Type.String({ minLength: 1, maxLength: 64, description: 'runs on this codebase (its id)' }),
        ),
        ...runPageProperties(PAGE),
      }),
      responses: {
        200: {
          description: 'a page of runs',
          schema: StrictObject({
            items: Type.Array(DashboardRunSchema),
            nextCursor: Type.Optional(Type.String()),
            counts: StatusCounts,
            nodeLimits: NodeLimitsByRun,
          }),
        },
      },
      handler: async ({ query }) => {
        const search = query.q?.trim() || undefined;
        // The database writes each item: the run's fields (runJsonColumns), then the dashboard's.
        const result = await dashboardRuns(
          context,
          { ...runFilters(query, PAGE), search, workflowName: query.workflow, codebaseId: query.codebase_id },
          runJsonColumns,
        );
        return {
          body: pageBody<
            Static<typeof DashboardRunSchema>,
            {
              counts: Static<typeof StatusCounts>;
              nodeLimits: Record<string, Static<typeof NodeTimeLimit>[]>;
            }
          >(result, {
            counts: result.counts,
            nodeLimits: result.nodeLimits,
          }),
        };
      },
    }),
  );
}
