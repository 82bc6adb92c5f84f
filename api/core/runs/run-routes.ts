import { defineRoute, defineRoutes, HttpProblem, type RouteDefinition } from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { transitionWithEvent } from '../../../services/runs/run-state.js';
import { recordRunEvent } from '../../../services/runs/run-journal.js';
import { waitingGate } from '../../../services/runs/waiting-gate.js';
import { findWorkflow } from '../../../services/workflow-definitions/discover-workflows.js';
import { loadConfig } from '../../../config/load-config.js';
import { findCodebase } from '../../../db/repositories/codebases.js';
import { findConversationByRef } from '../../../db/repositories/conversations.js';
import {
  createRun,
  deleteFinishedRun,
  findRun,
  TERMINAL_RUN_STATUSES,
  type RunStatus,
  type WorkflowRun,
} from '../../../db/repositories/workflow-runs.js';
import { requestActor } from '../codebases/actor.js';
import { ITEM_NAME_PATTERN } from '../workflows/workflow-routes.js';
import type { RunClient } from '../../../services/runs/run-client.js';
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
const NON_TERMINAL: readonly RunStatus[] = ['pending', 'running', 'paused'];

async function existingRun(deps: RunRouteDependencies, runId: string): Promise<WorkflowRun> {
  const run = await findRun(deps.context.db.knex, runId);
  if (!run) throw HttpProblem.notFound(`No workflow run with id ${runId}.`);
  return run;
}

function wrongState(run: WorkflowRun, operation: string, allowed: readonly RunStatus[]): HttpProblem {
  return HttpProblem.conflict(
    `Cannot ${operation} run ${run.id}: it is ${run.status}; ${operation} needs a run that is ${allowed.join(' or ')}.`,
    { currentState: run.status },
  );
}

/**
 * An operation on a run: a compare-and-swap of its status with the operation's event, then (for
 * the winner only) the signal to its execution. The wrong state is a 409 naming the current one.
 */
async function operate(
  deps: RunRouteDependencies,
  runId: string,
  operation: {
    name: string;
    from: readonly RunStatus[];
    to: RunStatus;
    event: string;
    actor: string;
    payload?: Record<string, unknown>;
  },
  thenSignal: (run: WorkflowRun) => Promise<void>,
): Promise<WorkflowRun> {
  const run = await existingRun(deps, runId);
  const changed = await transitionWithEvent(
    deps.context.db.knex,
    { runId, conversationId: run.conversationId },
    { from: operation.from, to: operation.to },
    { type: operation.event, actor: operation.actor, payload: operation.payload },
  );
  if (!changed)
    throw wrongState((await findRun(deps.context.db.knex, runId)) ?? run, operation.name, operation.from);
  await thenSignal(run);
  return (await findRun(deps.context.db.knex, runId)) ?? run;
}

export function runOperationRoutes(deps: RunRouteDependencies): RouteDefinition[] {
  const { db } = deps.context;
  const operationRoute = (
    name: 'cancel' | 'resume' | 'abandon' | 'approve' | 'reject',
    summary: string,
    body: Record<string, unknown> | undefined,
    run: (runId: string, actor: string, body: Record<string, string | undefined>) => Promise<WorkflowRun>,
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
        body: runView(await run(params.runId, requestActor(ctx), input ?? {})),
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
        const conversation = await findConversationByRef(db.knex, body.conversationId);
        if (!conversation) {
          throw new HttpProblem({
            status: 404,
            code: 'conversation_not_found',
            detail: `No conversation with id ${body.conversationId}.`,
            errors: [{ path: '/body/conversationId', message: 'names no conversation' }],
          });
        }
        const codebase = conversation.codebaseId
          ? await findCodebase(db.knex, conversation.codebaseId)
          : undefined;
        const loadBundled = codebase
          ? loadConfig({
              home: deps.context.home,
              environment: deps.context.environment,
              logger: deps.context.logger,
              repoPath: codebase.sourcePath,
            }).effective.defaults.loadDefaultWorkflows
          : true;
        const workflow = await findWorkflow(params.name, { cwd: codebase?.sourcePath, loadBundled });
        if (!workflow) throw HttpProblem.notFound(`No workflow named ${params.name}.`);
        const run = await createRun(db.knex, {
          workflowName: workflow.name,
          definition: workflow.workflow,
          message: body.message,
          conversationId: conversation.id,
          codebaseId: codebase?.id ?? null,
          workerPlatformId: conversation.platformConversationId,
        });
        // Accepted once stored: a run whose execution could not be started now is started by the worker's sweep.
        await deps.runs
          .start(run.id, { workflowName: workflow.name, codebaseId: codebase?.id })
          .catch((error: unknown) => {
            deps.context.logger.warn({
              event: 'run.start_deferred',
              runId: run.id,
              err: (error as Error).message,
            });
          });
        return { status: 202, body: runView(run), headers: { Location: `/api/workflows/runs/${run.id}` } };
      },
    }),
    operationRoute('cancel', 'Cancel a running or paused run', undefined, (runId, actor) =>
      operate(
        deps,
        runId,
        { name: 'cancel', from: ['running', 'paused'], to: 'cancelled', event: 'run_cancelled', actor },
        () => deps.runs.cancel(runId, actor),
      ),
    ),
    operationRoute(
      'approve',
      'Approve the waiting gate of a paused run',
      text('comment'),
      (runId, actor, body) =>
        operate(
          deps,
          runId,
          {
            name: 'approve',
            from: ['paused'],
            to: 'running',
            event: 'approval_received',
            actor,
            payload: { decision: 'approve', comment: body.comment ?? null },
          },
          () => deps.runs.approve(runId, actor, body.comment),
        ),
    ),
    operationRoute(
      'reject',
      'Reject the waiting gate of a paused run: the run is cancelled, unless the gate reworks',
      text('reason'),
      async (runId, actor, body) => {
        const reason = body.reason ?? null;
        const current = await existingRun(deps, runId);
        const gate = current.status === 'paused' ? await waitingGate(db.knex, current) : undefined;
        if (gate?.reworkOnReject) {
          // The gate declares on_reject: the run goes on with rework, and the gate asks again.
          return operate(
            deps,
            runId,
            {
              name: 'reject',
              from: ['paused'],
              to: 'running',
              event: 'approval_received',
              actor,
              payload: { decision: 'reject', reason, rework: true, nodeId: gate.nodeId },
            },
            () => deps.runs.reject(runId, actor, body.reason, true),
          );
        }
        return operate(
          deps,
          runId,
          {
            name: 'reject',
            from: ['paused'],
            to: 'cancelled',
            event: 'approval_received',
            actor,
            payload: { decision: 'reject', reason },
          },
          async (run) => {
            await recordRunEvent(db.knex, {
              runId,
              conversationId: run.conversationId,
              type: 'run_cancelled',
              actor,
              payload: { reason: body.reason ? `rejected: ${body.reason}` : 'rejected' },
            });
            await deps.runs.reject(runId, actor, body.reason, false);
          },
        );
      },
    ),
    operationRoute(
      'resume',
      'Resume a failed run: completed nodes are kept, the rest run again',
      undefined,
      (runId, actor) =>
        operate(
          deps,
          runId,
          { name: 'resume', from: ['failed'], to: 'running', event: 'run_resumed', actor },
          (run) =>
            deps.runs.start(runId, {
              resume: true,
              workflowName: run.workflowName,
              codebaseId: run.codebaseId,
            }),
        ),
    ),
    operationRoute('abandon', 'Stop a run for good, whatever it is doing', undefined, (runId, actor) =>
      operate(
        deps,
        runId,
        { name: 'abandon', from: NON_TERMINAL, to: 'abandoned', event: 'run_abandoned', actor },
        () => deps.runs.terminate(runId, `abandoned by ${actor}`),
      ),
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
        const run = await existingRun(deps, params.runId);
        if (!(await deleteFinishedRun(db.knex, run.id)))
          throw wrongState(run, 'delete', TERMINAL_RUN_STATUSES);
        return { status: 204 };
      },
    }),
  );
}
