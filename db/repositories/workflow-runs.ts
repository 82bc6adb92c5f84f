import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { jsonObjectSql, jsonRows, oncePer, type JsonProjection, type JsonRow } from '../json-projection.js';
import { limitClause, SqlConditions } from '../sql-conditions.js';
import { toReader, type ReadSource, type SqlReader } from '../sql-reader.js';
import { countOf, nowIso, parseJson, toIso, toIsoOrNull, toNumber } from '../rows.js';
import { TERMINAL_RUN_STATUSES, type RunStatus } from '../../domain/runs/run-status.js';

export interface WorkflowRun {
  id: string;
  workflowName: string;
  conversationId: string | null;
  codebaseId: string | null;
  isolationEnvironmentId: string | null;
  workerPlatformId: string | null;
  status: RunStatus;
  message: string | null;
  /** Values for the workflow's declared inputs (defaults applied); null when it declares none. */
  inputs: Record<string, string> | null;
  definition: Record<string, unknown>;
  currentNode: string | null;
  error: string | null;
  totalTokens: number;
  totalCostUsd: number;
  /** While a node waits out an assistant's usage limit: when the run goes on by itself. */
  waitingUntil: string | null;
  /** A run started by a sub-workflow node: the run and the node that started it. */
  parentRunId: string | null;
  parentNodeId: string | null;
  /** A run a workflow's schedule started: that schedule's id. */
  scheduleId: string | null;
  startedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewWorkflowRun {
  workflowName: string;
  definition: Record<string, unknown>;
  message?: string | null;
  inputs?: Record<string, string> | null;
  conversationId?: string | null;
  codebaseId?: string | null;
  workerPlatformId?: string | null;
  parentRunId?: string | null;
  parentNodeId?: string | null;
  scheduleId?: string | null;
}

interface RunRow {
  id: string;
  workflow_name: string;
  conversation_id: string | null;
  codebase_id: string | null;
  isolation_environment_id: string | null;
  worker_platform_id: string | null;
  status: RunStatus;
  message: string | null;
  inputs: string | null;
  definition: string;
  current_node: string | null;
  error: string | null;
  total_tokens: number | string;
  total_cost_usd: number | string;
  waiting_until?: unknown;
  parent_run_id?: string | null;
  parent_node_id?: string | null;
  schedule_id?: string | null;
  started_at: unknown;
  completed_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

function fromRow(row: RunRow): WorkflowRun {
  return {
    id: row.id,
    workflowName: row.workflow_name,
    conversationId: row.conversation_id,
    codebaseId: row.codebase_id,
    isolationEnvironmentId: row.isolation_environment_id,
    workerPlatformId: row.worker_platform_id,
    status: row.status,
    message: row.message,
    inputs: row.inputs === null || row.inputs === undefined ? null : parseJson(row.inputs, {}),
    definition: parseJson(row.definition, {}),
    currentNode: row.current_node,
    error: row.error,
    totalTokens: toNumber(row.total_tokens),
    totalCostUsd: toNumber(row.total_cost_usd),
    waitingUntil: toIsoOrNull(row.waiting_until ?? null),
    parentRunId: row.parent_run_id ?? null,
    parentNodeId: row.parent_node_id ?? null,
    scheduleId: row.schedule_id ?? null,
    startedAt: toIsoOrNull(row.started_at),
    completedAt: toIsoOrNull(row.completed_at),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function createRun(knex: Knex, input: NewWorkflowRun): Promise<WorkflowRun> {
  const now = nowIso();
  const row: RunRow = {
    id: randomUUID(),
    workflow_name: input.workflowName,
    conversation_id: input.conversationId ?? null,
    codebase_id: input.codebaseId ?? null,
    isolation_environment_id: null,
    worker_platform_id: input.workerPlatformId ?? null,
    status: 'pending',
    message: input.message ?? null,
    inputs: input.inputs ? JSON.stringify(input.inputs) : null,
    definition: JSON.stringify(input.definition),
    current_node: null,
    error: null,
    total_tokens: 0,
    total_cost_usd: 0,
    parent_run_id: input.parentRunId ?? null,
    parent_node_id: input.parentNodeId ?? null,
    schedule_id: input.scheduleId ?? null,
    started_at: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
  };
  await knex('workflow_runs').insert(row);
  return fromRow(row);
}

export async function findRun(source: ReadSource, id: string): Promise<WorkflowRun | undefined> {
  const row = await toReader(source).first<RunRow>('select * from workflow_runs where id = ?', [id]);
  return row ? fromRow(row) : undefined;
}

/** The runs a run's sub-workflow nodes started, oldest first. */
export async function listChildRuns(source: ReadSource, parentRunId: string): Promise<WorkflowRun[]> {
  const rows = await toReader(source).all<RunRow>(
    'select * from workflow_runs where parent_run_id = ? order by created_at, id',
    [parentRunId],
  );
  return rows.map(fromRow);
}

/**
 * Compare-and-swap of a run's status: changes it only when the current status is one of
 * `from`, so two racing operations cannot both succeed. Returns whether this call won.
 */
export async function transitionRun(
  knex: Knex,
  id: string,
  from: readonly RunStatus[],
  to: RunStatus,
  extra: { error?: string | null } = {},
): Promise<boolean> {
  const now = nowIso();
  const patch: Record<string, unknown> = { status: to, updated_at: now };
  if (to === 'running') patch.started_at = knex.raw('COALESCE(started_at, ?)', [now]);
  if (TERMINAL_RUN_STATUSES.includes(to)) patch.completed_at = now;
  if (extra.error !== undefined) patch.error = extra.error;
  // Any change of status ends a wait for a usage limit (a cancel, an approval, the end).
  patch.waiting_until = null;
  const changed = await knex('workflow_runs').where({ id }).whereIn('status', from).update(patch);
  return changed > 0;
}

/** Runs in one status, from the figures the triggers of migration 0004 keep. */
export async function countRunsWithStatus(source: ReadSource, status: RunStatus): Promise<number> {
  const row = await toReader(source).first<{ count: unknown }>(
    'select count from run_status_counts where status = ?',
    [status],
  );
  return countOf(row);
}

export async function listRunIdsOfCodebase(
  knex: Knex,
  codebaseId: string,
  statuses: readonly RunStatus[],
): Promise<string[]> {
  const rows = await knex('workflow_runs')
    .where({ codebase_id: codebaseId })
    .whereIn('status', statuses)
    .select('id');
  return rows.map((row: { id: string }) => row.id);
}

/** Ids of the earlier runs of a workflow in a conversation, newest first (`persist_session`). */
export async function listEarlierRunIds(
  knex: Knex,
  run: { id: string; workflowName: string; conversationId: string },
  limit = 5,
): Promise<string[]> {
  const rows = await knex('workflow_runs')
    .where({ conversation_id: run.conversationId, workflow_name: run.workflowName })
    .whereNot({ id: run.id })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select('id');
  return rows.map((row: { id: string }) => row.id);
}

export interface RunFilter {
  statuses?: readonly RunStatus[];
  workflowName?: string;
  conversationId?: string;
  codebaseId?: string;
  /** created_at bounds, ISO. */
  since?: string;
  until?: string;
  /** Keyset: runs strictly older than this (created_at, id). */
  before?: { createdAt: string; id: string };
  limit: number;
}

/** Runs created within `since` (inclusive) and `until` (exclusive), where given. */
export function addCreatedRange(
  conditions: SqlConditions,
  range: Pick<RunFilter, 'since' | 'until'>,
): SqlConditions {
  if (range.since) conditions.add('created_at >= ?', range.since);
  if (range.until) conditions.add('created_at < ?', range.until);
  return conditions;
}

/** The list's `where`, order and limit: newest first, keyed on (created_at, id). */
function listTail(filter: RunFilter, conditions: SqlConditions): string {
  if (filter.statuses?.length) conditions.in('status', filter.statuses);
  if (filter.workflowName) conditions.add('workflow_name = ?', filter.workflowName);
  if (filter.conversationId) conditions.add('conversation_id = ?', filter.conversationId);
  if (filter.codebaseId) conditions.add('codebase_id = ?', filter.codebaseId);
  addCreatedRange(conditions, filter);
  if (filter.before) {
    const { createdAt, id } = filter.before;
    conditions.add('(created_at < ? or (created_at = ? and id < ?))', createdAt, createdAt, id);
  }
  return `from workflow_runs${conditions.where} order by created_at desc, id desc${limitClause(filter.limit)}`;
}

/** Runs newest first, filtered, keyed on (created_at, id) so pages stay stable while runs start. */
export async function listRuns(
  source: ReadSource,
  filter: RunFilter,
  conditions = new SqlConditions(),
): Promise<WorkflowRun[]> {
  const sql = `select * ${listTail(filter, conditions)}`;
  return (await toReader(source).all<RunRow>(sql, conditions.params)).map(fromRow);
}

/** A listed run written as JSON by the database, with its position in the list. */
export type RunJson = JsonRow<{ createdAt: string; id: string }>;

const listedRows = oncePer((projection: JsonProjection) =>
  jsonRows<{ createdAt: string; id: string }>(projection, { createdAt: 'created_at', id: 'id' }),
);

/** listRuns, each row as the JSON text `projection` describes (for lists sent as they are). */
export async function listRunsAsJson(
  source: ReadSource,
  filter: RunFilter,
  projection: JsonProjection,
): Promise<RunJson[]> {
  const reader = toReader(source);
  const rows = await selectListedRuns<{ json: string }>(
    reader,
    filter,
    `${jsonObjectSql(reader.dialect, projection)} as json`,
  );
  return runJsonRows(projection, rows);
}

/** Rows with a `json` column written by `projection`, as RunJson. */
export function runJsonRows(projection: JsonProjection, rows: readonly { json: string }[]): RunJson[] {
  return listedRows(projection)(rows.map((row) => row.json));
}

/**
 * Runs in list order (newest first, filtered, limited), each row the `columns` given (SQL of the
 * repository's own making, never input), whose `?` take `selectParams` before the conditions'.
 */
export async function selectListedRuns<Row>(
  reader: SqlReader,
  filter: RunFilter,
  columns: string,
  options: { conditions?: SqlConditions; selectParams?: unknown[] } = {},
): Promise<Row[]> {
  const conditions = options.conditions ?? new SqlConditions();
  const tail = listTail(filter, conditions);
  return reader.all<Row>(`select ${columns} ${tail}`, [
    ...(options.selectParams ?? []),
    ...conditions.params,
  ]);
}

/** The newest run started from a worker conversation (a chat platform's conversation id). */
export async function findRunByWorker(knex: Knex, platformId: string): Promise<WorkflowRun | undefined> {
  const row = await knex<RunRow>('workflow_runs')
    .where('worker_platform_id', platformId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ? fromRow(row) : undefined;
}

/**
 * Deletes a run when its status is one of `from`, checked in the same statement; false when it
 * is not. Its events are the caller's to delete (services/runs/run-operations.ts deleteRun).
 */
export async function deleteRunIn(knex: Knex, id: string, from: readonly RunStatus[]): Promise<boolean> {
  const changed = await knex('workflow_runs').where({ id }).whereIn('status', from).delete();
  return changed > 0;
}

/** Runs waiting to begin since before the cutoff: their execution may never have been started. */
export async function listPendingRunsSince(knex: Knex, cutoffIso: string): Promise<string[]> {
  const rows = (await knex('workflow_runs')
    .where('status', 'pending')
    .andWhere('created_at', '<', cutoffIso)
    .select('id')) as Array<{ id: string }>;
  return rows.map((row) => row.id);
}

/** Runs in one of `statuses` whose row changed since `sinceIso` (recently stopped runs). */
export async function listRunsChangedSince(
  knex: Knex,
  statuses: readonly RunStatus[],
  sinceIso: string,
): Promise<WorkflowRun[]> {
  const rows = await knex<RunRow>('workflow_runs')
    .whereIn('status', statuses)
    .andWhere('updated_at', '>=', sinceIso);
  return rows.map(fromRow);
}
