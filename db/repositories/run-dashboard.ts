import { SqlConditions } from '../sql-conditions.js';
import { toReader, type ReadSource } from '../sql-reader.js';
import { countOf, toNumber } from '../rows.js';
import { RUN_STATUSES, type RunStatus } from '../../domain/runs/run-status.js';
import { addCreatedRange, listRuns, type RunFilter, type WorkflowRun } from './workflow-runs.js';

const ENDED_NODE_EVENTS = ['node_completed', 'node_failed', 'node_skipped'];

/** Distinct nodes that have ended, per run. */
export async function endedNodeCounts(
  source: ReadSource,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const conditions = new SqlConditions().in('run_id', runIds).in('type', ENDED_NODE_EVENTS);
  const rows = await toReader(source).all<{ run_id: string; count: unknown }>(
    `select run_id, count(distinct node_id) as count from events${conditions.where} group by run_id`,
    conditions.params,
  );
  return new Map(rows.map((row) => [row.run_id, toNumber(row.count)]));
}

/** Codebase names by id. */
export async function codebaseNames(
  source: ReadSource,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const conditions = new SqlConditions().in('id', wanted);
  const rows = await toReader(source).all<{ id: string; name: string }>(
    `select id, name from codebases${conditions.where}`,
    conditions.params,
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

type RangeAndSearch = Pick<RunFilter, 'since' | 'until'> & { search?: string };

/**
 * How many runs are in each status, within the same date range and search. Without either, the
 * figures the triggers of migration 0004 keep (one small read); with one, a count over the runs.
 */
export async function countRunsByStatus(
  source: ReadSource,
  filter: RangeAndSearch,
): Promise<Record<RunStatus, number>> {
  const conditions = addSearch(addCreatedRange(new SqlConditions(), filter), filter.search);
  const sql = conditions.where
    ? `select status, count(*) as count from workflow_runs${conditions.where} group by status`
    : 'select status, count from run_status_counts';
  const rows = await toReader(source).all<{ status: RunStatus; count: unknown }>(sql, conditions.params);
  const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
  for (const row of rows) if (row.status in counts) counts[row.status] = countOf(row);
  return counts;
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

/** listRuns with a text search on top. */
export async function searchRuns(
  source: ReadSource,
  filter: RunFilter & { search?: string },
): Promise<WorkflowRun[]> {
  return listRuns(source, filter, addSearch(new SqlConditions(), filter.search));
}
