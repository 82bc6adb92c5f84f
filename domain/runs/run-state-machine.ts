import { RUN_STATUSES, type RunStatus } from './run-status.js';

/**
 * The run state machine: for every operation, which states allow it and the state each one
 * leads to. The API's compare-and-swap updates and 409 answers, the run's own bookkeeping, the
 * workflow and the reconciler all read this table; docs/run-states.md shows it (npm run docs).
 */

/** Who asks for an operation. */
export type RunOperationActor = 'user' | 'run' | 'reconciler' | 'codebase deletion';

/** Where an operation leaves a run: a status, or gone. */
export type RunOutcome = RunStatus | 'deleted';

export interface RunOperationRule {
  by: RunOperationActor;
  /** What the operation does, for the docs. */
  meaning: string;
  /** The word users and refusals use for it, when it differs from the operation's name. */
  verb?: string;
  /** Each state that allows the operation and the outcome; every other state refuses it. */
  allowed: Partial<Record<RunStatus, RunOutcome>>;
}

const unfinished = <T extends RunOutcome>(to: T) => ({ pending: to, running: to, paused: to });

export const RUN_OPERATIONS = {
  cancel: {
    by: 'user',
    meaning: 'Stop a run that is under way; its nodes are cancelled.',
    allowed: { running: 'cancelled', paused: 'cancelled' },
  },
  approve: {
    by: 'user',
    meaning: 'Approve the gate a paused run waits at; the run goes on.',
    allowed: { paused: 'running' },
  },
  reject: {
    by: 'user',
    meaning: 'Reject the gate a paused run waits at; the run ends cancelled.',
    allowed: { paused: 'cancelled' },
  },
  rework: {
    by: 'user',
    meaning:
      'Reject a gate that declares `on_reject` and has attempts left; the run goes on with the rework, then the gate asks again.',
    verb: 'reject',
    allowed: { paused: 'running' },
  },
  resume: {
    by: 'user',
    meaning: 'Run a failed run again in a new execution; completed nodes are kept.',
    allowed: { failed: 'running' },
  },
  abandon: {
    by: 'user',
    meaning: 'Stop a run for good, whatever it is doing; its execution is terminated.',
    allowed: unfinished('abandoned'),
  },
  rerun: {
    by: 'user',
    meaning:
      'Start a new run of the same workflow with the same message and inputs, in the same conversation; this run stays as it ended.',
    verb: 're-run',
    allowed: { completed: 'completed', failed: 'failed', cancelled: 'cancelled', abandoned: 'abandoned' },
  },
  delete: {
    by: 'user',
    meaning: 'Delete a run that has ended, with its events.',
    allowed: { completed: 'deleted', failed: 'deleted', cancelled: 'deleted', abandoned: 'deleted' },
  },
  begin: {
    by: 'run',
    meaning:
      'The execution begins. A resumed run is running already (the resume set it); a run cancelled or abandoned first does not begin.',
    allowed: { pending: 'running', running: 'running', paused: 'paused' },
  },
  await_approval: {
    by: 'run',
    meaning: 'An approval gate is reached; a run already paused at another gate stays paused.',
    allowed: { running: 'paused', paused: 'paused' },
  },
  finish_completed: {
    by: 'run',
    meaning: 'Every node ended and no failure was left unabsorbed.',
    allowed: unfinished('completed'),
  },
  finish_failed: {
    by: 'run',
    meaning: 'A node failed and nothing downstream absorbed it, or the run could not be prepared.',
    allowed: unfinished('failed'),
  },
  finish_cancelled: {
    by: 'run',
    meaning:
      'The execution stopped after a cancel or a rejection; a run already cancelled or abandoned keeps that.',
    allowed: unfinished('cancelled'),
  },
  reconcile_start: {
    by: 'reconciler',
    meaning: 'A pending run whose execution never started gets it started.',
    allowed: { pending: 'pending' },
  },
  reconcile_fail: {
    by: 'reconciler',
    meaning:
      'A run under way whose execution is gone or ended without recording an outcome fails (a resume picks it up).',
    allowed: unfinished('failed'),
  },
  reconcile_stop: {
    by: 'reconciler',
    meaning: 'A cancelled or abandoned run whose execution still runs gets it stopped.',
    allowed: { cancelled: 'cancelled', abandoned: 'abandoned' },
  },
  codebase_deleted: {
    by: 'codebase deletion',
    meaning: 'Deleting a codebase cancels its runs that have not ended; their executions are told to stop.',
    allowed: unfinished('cancelled'),
  },
} as const satisfies Record<string, RunOperationRule>;

export type RunOperation = keyof typeof RUN_OPERATIONS;
export const RUN_OPERATION_NAMES = Object.keys(RUN_OPERATIONS) as RunOperation[];

export type RunDecision = { allowed: true; to: RunOutcome } | { allowed: false; reason: string };

const ruleOf = (operation: RunOperation): RunOperationRule => RUN_OPERATIONS[operation];

/** The states that allow an operation, in status order. */
export function statesAllowing(operation: RunOperation): RunStatus[] {
  const { allowed } = ruleOf(operation);
  return RUN_STATUSES.filter((state) => allowed[state] !== undefined);
}

/** The word users and refusals use for an operation (a rework is asked for as a reject). */
export function operationVerb(operation: RunOperation): string {
  return ruleOf(operation).verb ?? operation;
}

/** Why a state refuses an operation: what the operation needs, in the words the API's 409 uses. */
export function refusalReason(operation: RunOperation): string {
  return `${operationVerb(operation)} needs a run that is ${statesAllowing(operation).join(' or ')}`;
}

/** The answer of the table for one state and one operation. */
export function decideRunOperation(state: RunStatus, operation: RunOperation): RunDecision {
  const to = ruleOf(operation).allowed[state];
  return to === undefined ? { allowed: false, reason: refusalReason(operation) } : { allowed: true, to };
}

export function allowsRunOperation(state: RunStatus, operation: RunOperation): boolean {
  return decideRunOperation(state, operation).allowed;
}

/**
 * The compare-and-swap an operation makes on the status column: the states it changes and the
 * status it sets. States that allow the operation without a change are left out, so the swap
 * (and its event) happens only where the status moves.
 */
export function statusChange(operation: RunOperation): { from: RunStatus[]; to: RunStatus } {
  const { allowed } = ruleOf(operation);
  const from = RUN_STATUSES.filter((state) => allowed[state] !== undefined && allowed[state] !== state);
  const targets = new Set(from.map((state) => allowed[state]));
  const [to] = targets;
  if (targets.size !== 1 || to === undefined || to === 'deleted')
    throw new Error(`${operation} is not one status change`);
  return { from, to };
}
