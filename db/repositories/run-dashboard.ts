import { SqlConditions } from '../sql-conditions.js';
import { toReader, type ReadSource } from '../sql-reader.js';
import { countOf, parseJson } from '../rows.js';
import { RUN_STATUSES, type RunStatus } from '../../domain/runs/run-status.js';
import type { Dialect } from '../dialect.js';
import { jsonObjectSql, oncePerDialect, type JsonProjection } from '../json-projection.js';
import {
  addCreatedRange,
  runJsonRows,
  selectListedRuns,
  type RunFilter,
  type RunJson,
} from './workflow-runs.js';

/** The events that end a node, as an SQL list: as migration 0017's partial index names them. */
const ENDED_NODE_TYPES = "'node_completed', 'node_failed', 'node_skipped'";

/** Every filter of the dashboard but the status: what its counts per status follow. */
export type CountFilter = Pick<RunFilter, 'since' | 'until' | 'workflowName' | 'codebaseId'> & {
  search?: string;
};

/**
 * The statement counting runs per status under a filter: without any, the figures the triggers
 * of migration 0004 keep; with only a workflow, those of migration 0016 (both one small read);
 * with more, a count over the matching runs (the workflow and codebase ones by migration 0015's
 * indexes).
 */
function countStatement(filter: CountFilter): { sql: string; params: unknown[] } {
  const beyondWorkflow = filter.codebaseId || filter.search || filter.since || filter.until;
  if (filter.workflowName && !beyondWorkflow)
    return {
      sql: 'select status, count from run_workflow_counts where workflow_name = ?',
      params: [filter.workflowName],
    };
  const conditions = addCreatedRange(new SqlConditions(), filter);
  if (filter.workflowName) conditions.add('workflow_name = ?', filter.workflowName);
  if (filter.codebaseId) conditions.add('codebase_id = ?', filter.codebaseId);
  addSearch(conditions, filter.search);
  if (!conditions.where) return { sql: 'select status, count from run_status_counts', params: [] };
  return {
    sql: `select status, count(*) as count from workflow_runs${conditions.where} group by status`,
    params: conditions.params,
  };
}

/** Every status at zero, then the counts of `rows` (status and count, from countStatement). */
function statusCounts(rows: readonly { status: string; count: unknown }[]): Record<RunStatus, number> {
  const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
  for (const row of rows) if (row.status in counts) counts[row.status as RunStatus] = countOf(row);
  return counts;
}

/** How many runs are in each status, within the same workflow, codebase, date range and search. */
export async function countRunsByStatus(
  source: ReadSource,
  filter: CountFilter,
): Promise<Record<RunStatus, number>> {
  const { sql, params } = countStatement(filter);
  return statusCounts(await toReader(source).all<{ status: RunStatus; count: unknown }>(sql, params));
}

/** The counts of countStatement as one JSON object text (status to count), or null for none. */
function countsJsonSql(dialect: Dialect, countSql: string): string {
  const object =
    dialect === 'sqlite' ? 'json_group_object(status, count)' : 'json_object_agg(status, count)::text';
  return `(select ${object} from (${countSql}) status_counts)`;
}

/** The text search over the workflow name, the run's message and its codebase's name. */
function addSearch(conditions: SqlConditions, search: string | undefined): SqlConditions {
  if (!search) return conditions;
  // Case-insensitive, with the pattern's own % _ and \ taken literally.
  const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return conditions.add(
    `(lower(workflow_name) like ? escape '\\' or lower(coalesce(message, '')) like ? escape '\\'` +
      ` or codebase_id in (select id from codebases where lower(name) like ? escape '\\'))`,
    pattern,
    pattern,
    pattern,
  );
}

/**
 * What the dashboard adds to a run, computed by the database beside the run's own fields: its
 * codebase's name, distinct nodes ended (from migration 0017's index of ended-node events alone),
 * nodes in its definition (the count migration 0017 keeps), and milliseconds from its start to its
 * end (kept by migration 0019) or to `?` (now, the one parameter).
 */
function dashboardFields(dialect: Dialect): JsonProjection {
  const sqlite = dialect === 'sqlite';
  return {
    codebaseName: { sql: '(select name from codebases where codebases.id = workflow_runs.codebase_id)' },
    nodesDone: {
      sql:
        '(select count(distinct node_id) from events where events.run_id = workflow_runs.id' +
        ` and events.type in (${ENDED_NODE_TYPES}))`,
    },
    nodesTotal: ['node_count'],
    // An ended run's duration as migration 0019's triggers stored it; the others' computed here.
    durationMs: {
      sql: sqlite
        ? "coalesce(duration_ms, case when started_at is null then null else cast(round((unixepoch(coalesce(completed_at, ?), 'subsec') - unixepoch(started_at, 'subsec')) * 1000) as integer) end)"
        : 'coalesce(duration_ms, case when started_at is null then null else round(extract(epoch from (coalesce(completed_at, ?::timestamptz) - started_at)) * 1000)::bigint end)',
    },
    // The run's latest event (by the events' (run_id, id) index): how long the run has been quiet.
    lastEventAt: {
      sql: `(select ${sqlite ? 'created_at' : `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`} from events where events.run_id = workflow_runs.id order by id desc limit 1)`,
    },
  };
}

/** A page of the dashboard: its runs, and the counts per status under every filter but the status. */
export interface DashboardRows {
  rows: RunJson[];
  counts: Record<RunStatus, number>;
}

/**
 * Runs newest first with a text search on top, each written as JSON by the database: the run's
 * fields as `runProjection` describes them, then the dashboard's (dashboardFields); and the counts
 * per status under `countFilter`, in the same statement (a column the database computes once and
 * repeats on every row: on Postgres a second statement is a second round trip). An empty page
 * has no row to carry them, and counts them on its own.
 */
export async function searchRunsAsJson(
  source: ReadSource,
  filter: RunFilter & { search?: string },
  runProjection: JsonProjection,
  now: string,
  countFilter: CountFilter,
): Promise<DashboardRows> {
  const reader = toReader(source);
  const count = countStatement(countFilter);
  const projection = withDashboardFields(runProjection, reader.dialect);
  const rows = await selectListedRuns<{ json: string; counts: string | null }>(
    reader,
    filter,
    `${jsonObjectSql(reader.dialect, projection)} as json, ${countsJsonSql(reader.dialect, count.sql)} as counts`,
    { conditions: addSearch(new SqlConditions(), filter.search), selectParams: [now, ...count.params] },
  );
  if (rows.length === 0) return { rows: [], counts: await countRunsByStatus(reader, countFilter) };
  const counted = JSON.parse(rows[0]!.counts ?? '{}') as Record<string, unknown>;
  return {
    rows: runJsonRows(projection, rows),
    counts: statusCounts(Object.entries(counted).map(([status, value]) => ({ status, count: value }))),
  };
}

// The same merged projection object each time, so its SQL is written once (jsonObjectSql).
const withDashboardFields = oncePerDialect((runProjection: JsonProjection, dialect): JsonProjection => ({
  ...runProjection,
  ...dashboardFields(dialect),
}));

// A run's status as its JSON text shows it (`"status":"running"`; spaces around the colon allowed).
const RUNNING_STATUS_FIELD = /"status"\s*:\s*"running"/;

/**
 * Whether a run written as JSON may be running, without parsing it. In JSON text an unescaped
 * quote only ever delimits a string, so a running run's status field always matches; the same
 * characters can also be a key and value inside its inputs, a false positive that only costs
 * runningDefinitions a lookup (its SQL checks the status). Most pages hold no running run, and
 * then the lookup is skipped.
 */
export function mayBeRunning(json: string): boolean {
  return RUNNING_STATUS_FIELD.test(json);
}

/** The stored definitions of those of `ids` that are running, by run id. */
export async function runningDefinitions(
  source: ReadSource,
  ids: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const conditions = new SqlConditions().add('status = ?', 'running').in('id', ids);
  const rows = await toReader(source).all<{ id: string; definition: string }>(
    `select id, definition from workflow_runs${conditions.where}`,
    conditions.params,
  );
  return new Map(rows.map((row) => [row.id, parseJson(row.definition, {})]));
}
