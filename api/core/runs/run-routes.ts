import {
  ComponentRef,
  defineRoute,
  defineRoutes,
  problemResponse,
  StrictObject,
  StringMap,
  Type,
  type HttpContext,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import type { RunClient } from '../../../services/runs/run-client.js';
import {
  abandonRun,
  approveRun,
  cancelRun,
  deleteRun,
  rejectRun,
  rerunRun,
  resumeRun,
  startRun,
  type RunRequest,
} from '../../../services/runs/run-operations.js';
import { requestActor } from '../codebases/actor.js';
import { ITEM_NAME_PATTERN } from '../workflows/workflow-routes.js';
import { runView, WorkflowRun } from './run-view.js';

export interface RunRouteDependencies {
  context: ServiceContext;
  runs: RunClient;
}

const RunParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 64 }) });
const RunRef = ComponentRef('WorkflowRun', WorkflowRun);
const Note = Type.Optional(Type.String({ maxLength: 10_000 }));

/** What every run operation shares: POST to `/api/workflows/runs/{runId}/<name>`, answering the run. */
const operation = (name: 'cancel' | 'resume' | 'abandon' | 'approve' | 'reject', summary: string) => ({
  method: 'POST' as const,
  path: `/api/workflows/runs/{runId}/${name}`,
  operationId: `${name}Run`,
  summary,
  tags: ['runs'],
  params: RunParams,
  responses: { 200: { description: 'the run after the operation', schema: RunRef } },
});

const runRequest = (runId: string, ctx: HttpContext): RunRequest => ({ runId, actor: requestActor(ctx) });

export function runOperationRoutes({ context, runs }: RunRouteDependencies): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'POST',
      path: '/api/workflows/{name}/run',
      operationId: 'startRun',
      idempotent: true,
      summary: 'Start a workflow run on a conversation; it works in a worktree of its own',
      tags: ['runs'],
      params: Type.Object({ name: Type.String({ pattern: ITEM_NAME_PATTERN }) }),
      body: StrictObject({
        message: Type.String({ minLength: 1, maxLength: 200_000, pattern: '\\S' }),
        conversationId: Type.String({ minLength: 1, maxLength: 255 }),
        inputs: Type.Optional(
          StringMap({
            description: "values for the workflow's declared inputs (docs/workflow-format.md, Inputs)",
            maxProperties: 100,
          }),
        ),
        max_cost_usd: Type.Optional(
          Type.Number({
            exclusiveMinimum: 0,
            maximum: 100_000,
            description: "this run's budget in US dollars, over the workflow's max_cost_usd",
          }),
        ),
      }),
      responses: { 202: { description: 'the run, started', schema: RunRef } },
      handler: async ({ params, body }) => {
        const run = await startRun(context, runs, {
          workflowName: params.name,
          message: body.message,
          conversationId: body.conversationId,
          ...(body.inputs && { inputs: body.inputs }),
          ...(body.max_cost_usd !== undefined && { maxCostUsd: body.max_cost_usd }),
        });
        return { status: 202, body: runView(run), headers: { Location: `/api/workflows/runs/${run.id}` } };
      },
    }),
    defineRoute({
      ...operation('cancel', 'Cancel a running or paused run'),
      handler: async ({ params, ctx }) => ({
        body: runView(await cancelRun(context, runs, runRequest(params.runId, ctx))),
      }),
    }),
    defineRoute({
      ...operation('approve', 'Approve the waiting gate of a paused run'),
      body: StrictObject({ comment: Note }),
      bodyRequired: false,
      handler: async ({ params, body, ctx }) => ({
        body: runView(
          await approveRun(context, runs, { ...runRequest(params.runId, ctx), comment: body?.comment }),
        ),
      }),
    }),
    defineRoute({
      ...operation(
        'reject',
        'Reject the waiting gate of a paused run: the run is cancelled, unless the gate reworks',
      ),
      body: StrictObject({ reason: Note }),
      bodyRequired: false,
      handler: async ({ params, body, ctx }) => ({
        body: runView(
          await rejectRun(context, runs, { ...runRequest(params.runId, ctx), reason: body?.reason }),
        ),
      }),
    }),
    defineRoute({
      ...operation('resume', 'Resume a failed run: completed nodes are kept, the rest run again'),
      handler: async ({ params, ctx }) => ({
        body: runView(await resumeRun(context, runs, runRequest(params.runId, ctx))),
      }),
    }),
    defineRoute({
      ...operation('abandon', 'Stop a run for good, whatever it is doing'),
      handler: async ({ params, ctx }) => ({
        body: runView(await abandonRun(context, runs, runRequest(params.runId, ctx))),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/workflows/runs/{runId}/rerun',
      operationId: 'rerunWorkflowRun',
      idempotent: true,
      summary:
        'Start a new run of an ended run: the same workflow (as it is now), message and inputs, in the same conversation',
      tags: ['runs'],
      params: RunParams,
      responses: {
        202: { description: 'the new run, started', schema: RunRef },
        409: problemResponse(
          'conflict: the run has not ended; sub_workflow_run, no_conversation, conversation_not_found, workflow_not_found, workflow_changed, workflow_requirement_missing: it cannot be started again as it was',
        ),
      },
      handler: async ({ params, ctx }) => {
        const run = await rerunRun(context, runs, runRequest(params.runId, ctx));
        return { status: 202, body: runView(run), headers: { Location: `/api/workflows/runs/${run.id}` } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/workflows/runs/{runId}',
      operationId: 'deleteRun',
      summary: 'Delete a finished run and its events',
      tags: ['runs'],
      params: RunParams,
      responses: { 204: { description: 'deleted' } },
      handler: async ({ params }) => {
        await deleteRun(context, params.runId);
        return { status: 204 };
      },
    }),
  );
}
