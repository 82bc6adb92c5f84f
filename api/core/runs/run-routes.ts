import { defineRoute, defineRoutes, type RouteDefinition } from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import type { WorkflowRun } from '../../../db/repositories/workflow-runs.js';
import type { RunClient } from '../../../services/runs/run-client.js';
import {
  abandonRun,
  approveRun,
  cancelRun,
  deleteRun,
  rejectRun,
  resumeRun,
  startRun,
  type RunRequest,
} from '../../../services/runs/run-operations.js';
import { requestActor } from '../codebases/actor.js';
import { ITEM_NAME_PATTERN } from '../workflows/workflow-routes.js';
import { runView } from './run-view.js';

export interface RunRouteDependencies {
  context: ServiceContext;
  runs: RunClient;
}

const runParams = {
  type: 'object',
  required: ['runId'],
  properties: { runId: { type: 'string', minLength: 1, maxLength: 64 } },
};
const runRef = { $ref: '#/components/schemas/WorkflowRun' };

export function runOperationRoutes({ context, runs }: RunRouteDependencies): RouteDefinition[] {
  const operationRoute = (
    name: 'cancel' | 'resume' | 'abandon' | 'approve' | 'reject',
    summary: string,
    body: Record<string, unknown> | undefined,
    run: (request: RunRequest, body: Record<string, string | undefined>) => Promise<WorkflowRun>,
  ) =>
    defineRoute<{ params: { runId: string }; body: Record<string, string | undefined> | undefined }>({
      method: 'POST',
      path: `/api/workflows/runs/{runId}/${name}`,
      operationId: `${name}Run`,
      summary,
      tags: ['runs'],
      params: runParams,
      ...(body ? { body, bodyRequired: false } : {}),
      responses: { 200: { description: 'the run after the operation', schema: runRef } },
      handler: async ({ params, body: input, ctx }) => ({
        body: runView(await run({ runId: params.runId, actor: requestActor(ctx) }, input ?? {})),
      }),
    });
  const text = (field: string) => ({
    type: 'object',
    additionalProperties: false,
    properties: { [field]: { type: 'string', maxLength: 10_000 } },
  });

  return defineRoutes(
    defineRoute<{ params: { name: string }; body: { message: string; conversationId: string } }>({
      method: 'POST',
      path: '/api/workflows/{name}/run',
      operationId: 'startRun',
      summary: 'Start a workflow run on a conversation; it works in a worktree of its own',
      tags: ['runs'],
      params: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', pattern: ITEM_NAME_PATTERN } },
      },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['message', 'conversationId'],
        properties: {
          message: { type: 'string', minLength: 1, maxLength: 200_000, pattern: '\\S' },
          conversationId: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      responses: { 202: { description: 'the run, started', schema: runRef } },
      handler: async ({ params, body }) => {
        const run = await startRun(context, runs, {
          workflowName: params.name,
          message: body.message,
          conversationId: body.conversationId,
        });
        return { status: 202, body: runView(run), headers: { Location: `/api/workflows/runs/${run.id}` } };
      },
    }),
    operationRoute('cancel', 'Cancel a running or paused run', undefined, (request) =>
      cancelRun(context, runs, request),
    ),
    operationRoute('approve', 'Approve the waiting gate of a paused run', text('comment'), (request, body) =>
      approveRun(context, runs, { ...request, comment: body.comment }),
    ),
    operationRoute(
      'reject',
      'Reject the waiting gate of a paused run: the run is cancelled, unless the gate reworks',
      text('reason'),
      (request, body) => rejectRun(context, runs, { ...request, reason: body.reason }),
    ),
    operationRoute(
      'resume',
      'Resume a failed run: completed nodes are kept, the rest run again',
      undefined,
      (request) => resumeRun(context, runs, request),
    ),
    operationRoute('abandon', 'Stop a run for good, whatever it is doing', undefined, (request) =>
      abandonRun(context, runs, request),
    ),
    defineRoute<{ params: { runId: string } }>({
      method: 'DELETE',
      path: '/api/workflows/runs/{runId}',
      operationId: 'deleteRun',
      summary: 'Delete a finished run and its events',
      tags: ['runs'],
      params: runParams,
      responses: { 204: { description: 'deleted' } },
      handler: async ({ params }) => {
        await deleteRun(context, params.runId);
        return { status: 204 };
      },
    }),
  );
}
