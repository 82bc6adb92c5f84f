/**
 * Runs started by sub-workflow nodes: a child run record linked to its parent run and node, in
 * the parent's conversation and codebase; what the child ended with; and a child's cancel when
 * its parent is cancelled. The parent's workflow starts and signals the child's execution itself.
 */
import { findCodebase } from '../../db/repositories/codebases.js';
import { listRunEvents } from '../../db/repositories/run-events.js';
import { createRun, findRun, listChildRuns, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { statusChange } from '../../domain/runs/run-state-machine.js';
import type { ChildRunStart } from '../../domain/runs/run-contract.js';
import { MAX_SUB_WORKFLOW_DEPTH } from '../../domain/workflow-definitions/types.js';
import { validateWorkflowDefinition } from '../../domain/workflow-definitions/index.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { findWorkflow } from '../workflow-definitions/discover-workflows.js';
import { recordRunEvent } from './run-journal.js';
import { checkRequirements, resolveInputs } from './run-operations.js';
import { transitionWithEvent } from './run-state.js';

export interface ChildRunRequest {
  parentRunId: string;
  nodeId: string;
  workflowName: string;
  message: string;
}

/** How many runs up the chain of parents `run` sits (0: a run a person started). */
async function depthOf(deps: ServiceContext, run: WorkflowRun): Promise<number> {
  let depth = 0;
  for (let current = run; current.parentRunId; depth += 1) {
    const parent = await findRun(deps.db.knex, current.parentRunId);
    if (!parent) break;
    current = parent;
  }
  return depth;
}

async function childRecord(deps: ServiceContext, request: ChildRunRequest): Promise<WorkflowRun> {
  const { knex } = deps.db;
  const parent = await findRun(knex, request.parentRunId);
  if (!parent) throw ServiceError.notFound(`Run ${request.parentRunId} no longer exists.`);
  // A retried start (the worker died after storing the child) finds the child it stored.
  const earlier = (await listChildRuns(knex, parent.id)).find(
    (child) => child.parentNodeId === request.nodeId && child.status === 'pending',
  );
  if (earlier) return earlier;
  if ((await depthOf(deps, parent)) + 1 > MAX_SUB_WORKFLOW_DEPTH)
    throw ServiceError.conflict(`Sub-workflows nest at most ${MAX_SUB_WORKFLOW_DEPTH} deep.`);
  const codebase = parent.codebaseId ? await findCodebase(knex, parent.codebaseId) : undefined;
  const defaults = codebase ? deps.config.forRepository(codebase.sourcePath).effective.defaults : undefined;
  const workflow = await findWorkflow(request.workflowName, {
    cwd: codebase?.sourcePath,
    loadBundled: defaults?.loadDefaultWorkflows ?? true,
    loadArchon: defaults?.loadArchonFolders ?? true,
  });
  const checked = workflow && validateWorkflowDefinition(workflow.workflow);
  if (!workflow || !checked?.valid)
    throw ServiceError.notFound(
      `No valid workflow named ${request.workflowName} (cairn workflow list shows why).`,
    );
  checkRequirements(deps, checked.definition);
  const child = await createRun(knex, {
    workflowName: workflow.name,
    definition: workflow.workflow,
    message: request.message,
    inputs: resolveInputs(checked.definition, {}),
    conversationId: parent.conversationId,
    codebaseId: parent.codebaseId,
    parentRunId: parent.id,
    parentNodeId: request.nodeId,
  });
  await recordRunEvent(knex, {
    runId: parent.id,
    conversationId: parent.conversationId,
    type: 'sub_workflow_started',
    nodeId: request.nodeId,
    payload: { childRunId: child.id, workflowName: workflow.name },
  });
  return child;
}

/**
 * Stores the run a sub-workflow node starts, or says why it cannot (no such workflow, nested too
 * deep, a requirement or a required input missing): the node then fails with that reason.
 */
export async function startChildRun(deps: ServiceContext, request: ChildRunRequest): Promise<ChildRunStart> {
  try {
    return { runId: (await childRecord(deps, request)).id };
  } catch (error) {
    if (error instanceof ServiceError) return { error: error.detail };
    throw error;
  }
}

/** What a child run ended with; its output is that of its node that completed last. */
export async function childRunOutcome(
  deps: ServiceContext,
  runId: string,
): Promise<{ status: string; error: string | null; output: unknown; costUsd: number; tokens: number }> {
  const run = await findRun(deps.db.knex, runId);
  if (!run)
    return { status: 'missing', error: `run ${runId} no longer exists`, output: null, costUsd: 0, tokens: 0 };
  const completed = (await listRunEvents(deps.db.knex, runId)).filter(
    (event) => event.type === 'node_completed',
  );
  return {
    status: run.status,
    error: run.error,
    output: completed.at(-1)?.payload.output ?? null,
    costUsd: run.totalCostUsd,
    tokens: run.totalTokens,
  };
}

/**
 * The parent run was cancelled (or the node's timeout passed): the child is marked cancelled with
 * the reason, as an API cancel would; the parent's workflow signals its execution. A child that
 * ended already keeps its end.
 */
export async function cancelChildRun(
  deps: ServiceContext,
  input: { runId: string; actor: string | null; reason: string },
): Promise<void> {
  const child = await findRun(deps.db.knex, input.runId);
  if (!child) return;
  await transitionWithEvent(
    deps.db.knex,
    { runId: child.id, conversationId: child.conversationId },
    statusChange('cancel'),
    { type: 'run_cancelled', actor: input.actor ?? undefined, payload: { reason: input.reason } },
  );
}
