import { findCodebase } from '../../db/repositories/codebases.js';
import { findConversationByRef } from '../../db/repositories/conversations.js';
import { deleteRunEvents } from '../../db/repositories/run-events.js';
import {
  createRun,
  deleteRunIn,
  findRun,
  listChildRuns,
  type WorkflowRun,
} from '../../db/repositories/workflow-runs.js';
import {
  allowsRunOperation,
  operationVerb,
  refusalReason,
  statesAllowing,
  statusChange,
  type RunOperation,
} from '../../domain/runs/run-state-machine.js';
import type { WorkflowDefinition } from '../../domain/workflow-definitions/types.js';
import { validateWorkflowDefinition } from '../../domain/workflow-definitions/index.js';
import { codeHostAuthConfigured } from '../../config/code-host-auth.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { findWorkflow } from '../workflow-definitions/discover-workflows.js';
import type { RunClient } from './run-client.js';
import { recordRunEvent } from './run-journal.js';
import { requireRun } from './run-reads.js';
import { transitionWithEvent } from './run-state.js';
import { waitingGate } from './waiting-gate.js';

/** Who asks, on which run. */
export interface RunRequest {
  runId: string;
  actor: string;
}

/** A 409 naming the run's state and what the operation needs (the state machine's reason). */
function wrongState(run: WorkflowRun, operation: RunOperation): ServiceError {
  const verb = operationVerb(operation);
  return ServiceError.conflict(
    `Cannot ${verb} run ${run.id}: it is ${run.status}; ${refusalReason(operation)}.`,
    {
      currentState: run.status,
    },
  );
}

/**
 * An operation on a run: the state machine's compare-and-swap of its status with the
 * operation's event, then (for the winner only) the word to its execution.
 */
async function operate(
  context: ServiceContext,
  runId: string,
  operation: RunOperation,
  event: { type: string; actor: string; payload?: Record<string, unknown> },
  thenTellExecution: (run: WorkflowRun) => Promise<void>,
): Promise<WorkflowRun> {
  const { knex } = context.db;
  const run = await requireRun(context, runId);
  const ref = { runId, conversationId: run.conversationId };
  if (!(await transitionWithEvent(knex, ref, statusChange(operation), event)))
    throw wrongState((await findRun(knex, runId)) ?? run, operation);
  await thenTellExecution(run);
  return (await findRun(knex, runId)) ?? run;
}

/**
 * The run's input values: each declared input from the request, else its default (else empty);
 * null when the workflow declares none. A missing required input or an undeclared one is a 400.
 */
export function resolveInputs(
  definition: WorkflowDefinition,
  given: Record<string, string>,
): Record<string, string> | null {
  const declared = definition.inputs ?? {};
  const errors = [
    ...Object.keys(given)
      .filter((name) => !Object.hasOwn(declared, name))
      .map((name) => ({ path: `/body/inputs/${name}`, message: 'is not an input of this workflow' })),
    ...Object.entries(declared)
      .filter(([name, spec]) => spec.required && given[name] === undefined)
      .map(([name]) => ({ path: `/body/inputs/${name}`, message: 'is required by this workflow' })),
  ];
  if (errors.length > 0) {
    const names = Object.keys(declared);
    const detail = names.length > 0 ? `Its inputs: ${names.join(', ')}.` : 'It declares no inputs.';
    throw ServiceError.invalid('invalid_inputs', `The inputs do not fit the workflow. ${detail}`, errors);
  }
  if (Object.keys(declared).length === 0) return null;
  return Object.fromEntries(
    Object.entries(declared).map(([name, spec]) => [name, given[name] ?? spec.default ?? '']),
  );
}

const REQUIRED_TOKENS = {
  github: 'GITHUB_TOKEN (or GITHUB_APP_ID with its key)',
  gitlab: 'GITLAB_TOKEN',
} as const;

/** A workflow that `requires` a code host runs only once that host's token (or GitHub App) is configured. */
export function checkRequirements(context: ServiceContext, definition: WorkflowDefinition): void {
  const missing = (definition.requires ?? []).filter(
    (host) => !codeHostAuthConfigured(context.environment, host),
  );
  if (missing.length === 0) return;
  const variables = missing.map((host) => REQUIRED_TOKENS[host]).join(' and ');
  throw new ServiceError({
    kind: 'conflict',
    code: 'workflow_requirement_missing',
    detail: `Workflow ${definition.name} requires ${missing.join(' and ')}: set ${variables} and restart Cairn.`,
  });
}

export interface RunStartRequest {
  workflowName: string;
  message: string;
  conversationId: string;
  inputs?: Record<string, string>;
  /** This run's budget, over the workflow's `max_cost_usd`. */
  maxCostUsd?: number;
  /** The workflow schedule that starts it. */
  scheduleId?: string;
}

/**
 * Stores a run of the named workflow on a conversation and starts its execution. The run is
 * accepted once stored: one whose execution could not be started now is started by the
 * worker's sweep.
 */
export async function startRun(
  context: ServiceContext,
  runs: RunClient,
  input: RunStartRequest,
): Promise<WorkflowRun> {
  const run = await storeRun(context, input);
  await runs
    .start(run.id, { workflowName: run.workflowName, codebaseId: run.codebaseId })
    .catch((error: unknown) => {
      context.logger.warn({ event: 'run.start_deferred', runId: run.id, err: (error as Error).message });
    });
  return run;
}

/**
 * Stores a run of the named workflow on a conversation, checked as a start request is (the
 * conversation, the workflow, its requirements and inputs), without starting its execution.
 */
export async function storeRun(context: ServiceContext, input: RunStartRequest): Promise<WorkflowRun> {
  const { knex } = context.db;
  const conversation = await findConversationByRef(knex, input.conversationId);
  // A deleted conversation takes no new runs, as it takes no new messages.
  if (!conversation || conversation.deletedAt) {
    const why = conversation ? 'names a deleted conversation' : 'names no conversation';
    throw new ServiceError({
      kind: 'not_found',
      code: 'conversation_not_found',
      detail: conversation
        ? `Conversation ${input.conversationId} was deleted; start a new conversation.`
        : `No conversation with id ${input.conversationId}.`,
      errors: [{ path: '/body/conversationId', message: why }],
    });
  }
  const codebase = conversation.codebaseId ? await findCodebase(knex, conversation.codebaseId) : undefined;
  const defaults = codebase
    ? context.config.forRepository(codebase.sourcePath).effective.defaults
    : undefined;
  const workflow = await findWorkflow(input.workflowName, {
    cwd: codebase?.sourcePath,
    loadBundled: defaults?.loadDefaultWorkflows ?? true,
    loadArchon: defaults?.loadArchonFolders ?? true,
  });
  if (!workflow) throw ServiceError.notFound(`No workflow named ${input.workflowName}.`);
  // Discovery found it valid: this is its normalized form.
  const checked = validateWorkflowDefinition(workflow.workflow);
  if (!checked.valid) throw ServiceError.notFound(`No valid workflow named ${input.workflowName}.`);
  checkRequirements(context, checked.definition);
  const inputs = resolveInputs(checked.definition, input.inputs ?? {});
  const run = await createRun(knex, {
    workflowName: workflow.name,
    // The run keeps its own copy of the definition: a budget given with the request is part of it.
    definition:
      input.maxCostUsd === undefined
        ? workflow.workflow
        : { ...workflow.workflow, max_cost_usd: input.maxCostUsd },
    message: input.message,
    inputs,
    conversationId: conversation.id,
    codebaseId: codebase?.id ?? null,
    workerPlatformId: conversation.platformConversationId,
    scheduleId: input.scheduleId ?? null,
  });
  return run;
}

export async function cancelRun(
  context: ServiceContext,
  runs: RunClient,
  { runId, actor }: RunRequest,
): Promise<WorkflowRun> {
  return operate(context, runId, 'cancel', { type: 'run_cancelled', actor }, () => runs.cancel(runId, actor));
}

export async function approveRun(
  context: ServiceContext,
  runs: RunClient,
  { runId, actor, comment }: RunRequest & { comment?: string },
): Promise<WorkflowRun> {
  return operate(
    context,
    runId,
    'approve',
    { type: 'approval_received', actor, payload: { decision: 'approve', comment: comment ?? null } },
    () => runs.approve(runId, actor, comment),
  );
}

/**
 * Rejects the gate a paused run waits at: the run is cancelled, unless the gate declares
 * on_reject and has attempts left; then the run goes on with the rework and the gate asks again.
 */
export async function rejectRun(
  context: ServiceContext,
  runs: RunClient,
  { runId, actor, reason }: RunRequest & { reason?: string },
): Promise<WorkflowRun> {
  const current = await requireRun(context, runId);
  const gate = allowsRunOperation(current.status, 'rework')
    ? await waitingGate(context.db.knex, current)
    : undefined;
  if (gate?.reworkOnReject) {
    return operate(
      context,
      runId,
      'rework',
      {
        type: 'approval_received',
        actor,
        payload: { decision: 'reject', reason: reason ?? null, rework: true, nodeId: gate.nodeId },
      },
      () => runs.reject(runId, actor, reason, true),
    );
  }
  return operate(
    context,
    runId,
    'reject',
    { type: 'approval_received', actor, payload: { decision: 'reject', reason: reason ?? null } },
    async (run) => {
      await recordRunEvent(context.db.knex, {
        runId,
        conversationId: run.conversationId,
        type: 'run_cancelled',
        actor,
        payload: { reason: reason ? `rejected: ${reason}` : 'rejected' },
      });
      await runs.reject(runId, actor, reason, false);
    },
  );
}

/**
 * Runs a failed run again in a new execution: completed nodes are kept, the rest run again. A
 * run that waits out an assistant's usage limit (running, with waitingUntil) goes on at once
 * instead: its waiting nodes ask the assistant again now (the limit may be lifted early).
 */
export async function resumeRun(
  context: ServiceContext,
  runs: RunClient,
  { runId, actor }: RunRequest,
): Promise<WorkflowRun> {
  const current = await requireRun(context, runId);
  if (current.status === 'running' && current.waitingUntil) {
    await recordRunEvent(context.db.knex, {
      runId,
      conversationId: current.conversationId,
      type: 'run_woken',
      actor,
      payload: { waitingUntil: current.waitingUntil },
    });
    await runs.wake(runId, actor);
    return current;
  }
  return operate(context, runId, 'resume', { type: 'run_resumed', actor }, (run) =>
    runs.start(runId, { resume: true, workflowName: run.workflowName, codebaseId: run.codebaseId }),
  );
}

/**
 * Stops a run for good, whatever it is doing: its execution is terminated, and so are the runs
 * its sub-workflow nodes started that have not ended (Temporal terminates their executions with
 * it; their records say abandoned too).
 */
export async function abandonRun(
  context: ServiceContext,
  runs: RunClient,
  { runId, actor }: RunRequest,
): Promise<WorkflowRun> {
  const abandoned = await operate(context, runId, 'abandon', { type: 'run_abandoned', actor }, () =>
    runs.terminate(runId, `abandoned by ${actor}`),
  );
  for (const child of await listChildRuns(context.db.knex, runId)) {
    if (!allowsRunOperation(child.status, 'abandon')) continue;
    await abandonRun(context, runs, { runId: child.id, actor }).catch((error: unknown) => {
      // A child that ended meanwhile keeps its end.
      if (!(error instanceof ServiceError && error.kind === 'conflict')) throw error;
    });
  }
  return abandoned;
}

const RERUN_CODES: Record<string, string> = {
  invalid_inputs: 'workflow_changed',
  not_found: 'workflow_not_found',
};

/** Why a stored run cannot be started again as it was, as a 409 on the run (not on a request body). */
function cannotRerun(run: WorkflowRun, code: string, why: string): ServiceError {
  return new ServiceError({
    kind: 'conflict',
    code,
    detail: `Cannot re-run run ${run.id}: ${why}`,
    extra: { currentState: run.status },
  });
}

/**
 * Starts a new run of an ended run's workflow, with its message and input values, in its
 * conversation (so on its codebase). The workflow is read as it is now: a fixed definition is
 * what a re-run is for. The ended run stays as it is. A sub-workflow's run is re-run through
 * its parent, whose folder it works in.
 */
export async function rerunRun(
  context: ServiceContext,
  runs: RunClient,
  { runId }: RunRequest,
): Promise<WorkflowRun> {
  const run = await requireRun(context, runId);
  if (!allowsRunOperation(run.status, 'rerun')) throw wrongState(run, 'rerun');
  if (run.parentRunId)
    throw cannotRerun(
      run,
      'sub_workflow_run',
      `a sub-workflow's run works in its parent's folder; re-run run ${run.parentRunId}.`,
    );
  if (!run.conversationId) throw cannotRerun(run, 'no_conversation', 'it belongs to no conversation.');
  try {
    return await startRun(context, runs, {
      workflowName: run.workflowName,
      message: run.message ?? '',
      conversationId: run.conversationId,
      ...(run.inputs && { inputs: run.inputs }),
    });
  } catch (error) {
    // What would be the request's fault in a start is the stored run's here: a 409 saying why.
    if (error instanceof ServiceError && (error.kind === 'not_found' || error.code === 'invalid_inputs'))
      throw cannotRerun(run, RERUN_CODES[error.code] ?? error.code, error.detail);
    throw error;
  }
}

/** Deletes a run that has ended, with its events, in one transaction. */
export async function deleteRun(context: ServiceContext, runId: string): Promise<void> {
  const run = await requireRun(context, runId);
  const deleted = await context.db.knex.transaction(async (trx) => {
    if (!(await deleteRunIn(trx, run.id, statesAllowing('delete')))) return false;
    await deleteRunEvents(trx, run.id);
    return true;
  });
  if (!deleted) throw wrongState(run, 'delete');
}
