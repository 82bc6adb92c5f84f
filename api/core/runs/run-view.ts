import {
  AnyObject,
  ComponentRef,
  DateTime,
  Nullable,
  type Static,
  StrictObject,
  StringEnum,
  StringMap,
  Type,
} from '../../http/index.js';
import type { JsonProjection } from '../../../db/json-projection.js';
import type { RunDetailProjections } from '../../../db/repositories/run-detail.js';
import type { RunEvent } from '../../../db/repositories/run-events.js';
import type { WorkflowRun as RunRecord } from '../../../db/repositories/workflow-runs.js';
import { RUN_STATUSES } from '../../../domain/runs/run-status.js';
import { MAX_ARTIFACTS } from '../../../services/runs/run-artifacts.js';
import { MAX_FILES, MAX_PATCH_BYTES } from '../../../services/runs/run-diff.js';

/** One `enum` of the statuses, as the OpenAPI document has always shown it (not an anyOf of literals). */
const RunStatusSchema = StringEnum(RUN_STATUSES);

export const WorkflowRun = StrictObject({
  runId: Type.String(),
  workflowName: Type.String(),
  status: RunStatusSchema,
  message: Nullable(Type.String()),
  inputs: Nullable(
    StringMap({
      description: "values of the workflow's declared inputs, defaults applied; null when it declares none",
    }),
  ),
  conversationId: Nullable(Type.String()),
  codebaseId: Nullable(Type.String()),
  isolationEnvironmentId: Nullable(Type.String()),
  workerPlatformId: Nullable(Type.String()),
  currentNode: Nullable(Type.String()),
  error: Nullable(Type.String()),
  totalTokens: Type.Integer(),
  totalCostUsd: Type.Number(),
  waitingUntil: Nullable(
    DateTime({ description: "while a node waits out the assistant's usage limit: when the run goes on" }),
  ),
  parentRunId: Nullable(Type.String({ description: 'the run whose sub-workflow node started this one' })),
  parentNodeId: Nullable(Type.String({ description: "that run's node" })),
  scheduleId: Nullable(
    Type.String({ description: 'the workflow schedule that started this run (GET /api/schedules)' }),
  ),
  startedAt: Nullable(DateTime()),
  completedAt: Nullable(DateTime()),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const WorkflowRunEvent = StrictObject({
  id: Type.Integer(),
  type: Type.String(),
  nodeId: Nullable(Type.String()),
  actor: Nullable(Type.String()),
  payload: AnyObject(),
  createdAt: DateTime(),
});

export const RunChangedFile = StrictObject({
  path: Type.String(),
  oldPath: Nullable(Type.String({ description: "a renamed file's path before" })),
  status: StringEnum(['added', 'modified', 'deleted', 'renamed'] as const),
  additions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
  binary: Type.Boolean({ description: 'a binary file: git counts no lines' }),
});

export const RunDiff = StrictObject({
  runId: Type.String(),
  baseBranch: Type.String({ description: 'the branch the worktree started from' }),
  mergeBase: Type.String({
    description: 'the commit the worktree and its base branch share; the diff starts there',
  }),
  head: Type.String({ description: 'the commit the worktree is at' }),
  files: Type.Array(ComponentRef('RunChangedFile', RunChangedFile), {
    description: `every changed file (at most ${MAX_FILES}), committed or not, new files included`,
  }),
  patch: Type.String({ description: `the unified diff, cut at a line end after ${MAX_PATCH_BYTES} bytes` }),
  truncated: Type.Boolean({ description: 'the patch or the file list was cut' }),
});

export const NodeTimeLimit = StrictObject({
  nodeId: Type.String(),
  timeoutMs: Nullable(
    Type.Integer({
      description: "the node's timeout, or the default node timeout; null when it may wait indefinitely",
    }),
  ),
  retryDelayMs: Type.Integer({ description: 'the pause between tries of a node that retries; 0 otherwise' }),
});

export const RunArtifact = StrictObject({
  path: Type.String({
    description:
      'the path inside the artifacts folder, / between folders; URL-encode it whole (/ as %2F) to download',
  }),
  name: Type.String({ description: "the file's name" }),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  modifiedAt: DateTime(),
});

export const RunArtifactList = StrictObject({
  runId: Type.String(),
  artifacts: Type.Array(ComponentRef('RunArtifact', RunArtifact), {
    description: `regular files only, in path order, at most ${MAX_ARTIFACTS}`,
  }),
  truncated: Type.Boolean({ description: `the folder holds more than ${MAX_ARTIFACTS} files` }),
});

export const runSchemas = {
  WorkflowRun,
  WorkflowRunEvent,
  RunDiff,
  RunChangedFile,
  NodeTimeLimit,
  RunArtifact,
  RunArtifactList,
};

export function runView(run: RunRecord): Static<typeof WorkflowRun> {
  return {
    runId: run.id,
    workflowName: run.workflowName,
    status: run.status,
    message: run.message,
    inputs: run.inputs,
    conversationId: run.conversationId,
    codebaseId: run.codebaseId,
    isolationEnvironmentId: run.isolationEnvironmentId,
    workerPlatformId: run.workerPlatformId,
    currentNode: run.currentNode,
    error: run.error,
    totalTokens: run.totalTokens,
    totalCostUsd: run.totalCostUsd,
    waitingUntil: run.waitingUntil,
    parentRunId: run.parentRunId,
    parentNodeId: run.parentNodeId,
    scheduleId: run.scheduleId,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

/**
 * A run as the database writes it for the lists: the same fields, in the same order, as runView;
 * test/integration/db/json-pages.test.ts holds the two to each other.
 */
export const runJsonColumns: JsonProjection = {
  runId: ['id'],
  workflowName: ['workflow_name'],
  status: ['status'],
  message: ['message'],
  inputs: ['inputs', 'json'],
  conversationId: ['conversation_id'],
  codebaseId: ['codebase_id'],
  isolationEnvironmentId: ['isolation_environment_id'],
  workerPlatformId: ['worker_platform_id'],
  currentNode: ['current_node'],
  error: ['error'],
  totalTokens: ['total_tokens'],
  totalCostUsd: ['total_cost_usd'],
  waitingUntil: ['waiting_until', 'time'],
  parentRunId: ['parent_run_id'],
  parentNodeId: ['parent_node_id'],
  scheduleId: ['schedule_id'],
  startedAt: ['started_at', 'time'],
  completedAt: ['completed_at', 'time'],
  createdAt: ['created_at', 'time'],
  updatedAt: ['updated_at', 'time'],
};

/** A run event as the database writes it for the run detail: the same fields as runEventView. */
export const runEventJsonColumns: JsonProjection = {
  id: ['id'],
  type: ['type'],
  nodeId: ['node_id'],
  actor: ['actor'],
  payload: ['payload', 'json'],
  createdAt: ['created_at', 'time'],
};

/** A run a sub-workflow node started, as the run detail lists it (its `children`). */
const childRunJsonColumns: JsonProjection = {
  runId: ['id'],
  workflowName: ['workflow_name'],
  status: ['status'],
  nodeId: ['parent_node_id'],
};

/** The run detail as the database writes it in one statement: the run, its events, its children. */
export const runDetailJsonColumns: RunDetailProjections = {
  run: runJsonColumns,
  event: runEventJsonColumns,
  child: childRunJsonColumns,
};

export function runEventView(event: RunEvent): Static<typeof WorkflowRunEvent> {
  return {
    id: event.id,
    type: event.type,
    nodeId: event.nodeId,
    actor: event.actor,
    payload: event.payload,
    createdAt: event.createdAt,
  };
}
