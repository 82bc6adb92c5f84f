import {
  ComponentRef,
  defineRoute,
  defineRoutes,
  Nullable,
  pageSchema,
  SerializedJson,
  StrictObject,
  StringEnum,
  Type,
  type RouteDefinition,
  type Static,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { runWorkflowId } from '../../../domain/runs/run-contract.js';
import { RUN_STATUSES } from '../../../domain/runs/run-status.js';
import { definitionFactsOfRun } from '../../../services/runs/definition-facts.js';
import { temporalUrlFor } from '../../../services/temporal-url.js';
import { getRunDetailAsJson, listRunsPage, runIdByWorker } from '../../../services/runs/run-reads.js';
import { runArtifactRoutes } from './run-artifact-routes.js';
import { runDiffRoute } from './run-diff-route.js';
import { pageBody, runFilterProperties, runFilters, runPageProperties } from './run-query.js';
import {
  NodeTimeLimit,
  runDetailJsonColumns,
  runJsonColumns,
  WorkflowRun,
  WorkflowRunEvent,
} from './run-view.js';

const PAGE = { default: 50, max: 200 };
const RunRef = ComponentRef('WorkflowRun', WorkflowRun);

const RunDetailSchema = StrictObject({
  run: RunRef,
  events: Type.Array(ComponentRef('WorkflowRunEvent', WorkflowRunEvent)),
  temporalUrl: Nullable(
    Type.String({
      description: "the run's execution in the Temporal Web UI (TEMPORAL_UI_URL); null when no UI is known",
    }),
  ),
  children: Type.Array(
    StrictObject({
      runId: Type.String(),
      workflowName: Type.String(),
      status: StringEnum(RUN_STATUSES),
      nodeId: Nullable(Type.String({ description: 'the sub-workflow node that started it' })),
    }),
    { description: "the runs this run's sub-workflow nodes started, oldest first" },
  ),
  nodeLimits: Type.Array(ComponentRef('NodeTimeLimit', NodeTimeLimit), {
    description:
      "each node's effective timeout from the run's definition: a running node quiet for longer has likely stalled",
  }),
  nodes: Type.Array(
    StrictObject({
      nodeId: Type.String(),
      dependsOn: Type.Array(Type.String(), { description: 'the nodes it waits for, in the order written' }),
    }),
    {
      description:
        "every node of the run's stored definition, in its order: the graph the run follows (empty when the definition no longer validates)",
    },
  ),
});

/**
 * A run, its events and the runs it started, written by the database as JSON in one statement
 * (docs/architecture.md, "Lists the database writes as JSON"), with what its definition says.
 */
async function runDetailBody(context: ServiceContext, runId: string) {
  const [detail, facts] = await Promise.all([
    getRunDetailAsJson(context, runId, runDetailJsonColumns),
    definitionFactsOfRun(context, runId),
  ]);
  return SerializedJson.object<Static<typeof RunDetailSchema>>({
    run: new SerializedJson(detail.run),
    events: new SerializedJson(detail.events),
    temporalUrl: temporalUrlFor(context, runWorkflowId(runId)),
    children: new SerializedJson(detail.children),
    nodeLimits: facts.nodeLimits,
    nodes: facts.nodes,
  });
}

export function runReadRoutes(context: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/workflows/runs',
      operationId: 'listRuns',
      summary: 'Workflow runs, newest first, in pages',
      tags: ['runs'],
      query: StrictObject({
        ...runFilterProperties,
        workflowName: Type.Optional(Type.String({ maxLength: 64 })),
        conversationId: Type.Optional(Type.String({ maxLength: 255 })),
        codebaseId: Type.Optional(Type.String({ maxLength: 64 })),
        ...runPageProperties(PAGE),
      }),
      responses: { 200: { description: 'a page of runs', schema: pageSchema(RunRef) } },
      handler: async ({ query }) => {
        const result = await listRunsPage(
          context,
          {
            ...runFilters(query, PAGE),
            workflowName: query.workflowName,
            conversationId: query.conversationId,
            codebaseId: query.codebaseId,
          },
          runJsonColumns,
        );
        return { body: pageBody<Static<typeof WorkflowRun>>(result) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/workflows/runs/by-worker/{platformId}',
      operationId: 'getRunByWorker',
      summary: 'The newest run started from a worker conversation',
      tags: ['runs'],
      params: Type.Object({ platformId: Type.String({ minLength: 1, maxLength: 255 }) }),
      responses: { 200: { description: 'the run with its events', schema: RunDetailSchema } },
      handler: async ({ params }) => ({
        body: await runDetailBody(context, await runIdByWorker(context, params.platformId)),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/workflows/runs/{runId}',
      operationId: 'getRun',
      summary: 'A run and its events',
      tags: ['runs'],
      params: Type.Object({ runId: Type.String({ minLength: 1, maxLength: 64 }) }),
      responses: { 200: { description: 'the run with its events', schema: RunDetailSchema } },
      handler: async ({ params }) => ({ body: await runDetailBody(context, params.runId) }),
    }),
    runDiffRoute(context),
    ...runArtifactRoutes(context),
  );
}
