import type { Knex } from 'knex';
import { countOf, toNumber } from '../rows.js';
import { RUN_STATUSES, type RunStatus } from '../../domain/runs/run-status.js';
import { listRuns, type RunFilter, type WorkflowRun } from './workflow-runs.js';

const ENDED_NODE_EVENTS = ['node_completed', 'node_failed', 'node_skipped'];

/** Distinct nodes that have ended, per run. */
export async function endedNodeCounts(knex: Knex, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = (await knex('events')
    .select('run_id')
    .countDistinct({ count: 'node_id' })
    .whereIn('run_id', runIds)
    .whereIn('type', ENDED_NODE_EVENTS)
    .groupBy('run_id')) as Array<{ run_id: string; count: unknown }>;
  return new Map(rows.map((row) => [row.run_id, toNumber(row.count)]));
}

/** Codebase names by id. */
export async function codebaseNames(knex: Knex, ids: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = (await knex('codebases').select('id', 'name').whereIn('id', wanted)) as Array<{
    id: string;
    name: string;
  }>;
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** How many runs are in each status, within the same date range and search. */
export async function countRunsByStatus(
  knex: Knex,
  filter: Pick<RunFilter, 'since' | 'until'> & { search?: string },
): Promise<Record<RunStatus, number>> {
  const query = knex('workflow_runs').select('status').count({ count: '*' }).groupBy('status');
  applyRange(query, filter);
  applySearch(knex, query, filter.search);
  const rows = (await query) as Array<{ status: RunStatus; count: unknown }>;
  const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
  for (const row of rows) counts[row.status] = countOf(row);
  return counts;
}

function applyRange(query: Knex.QueryBuilder, filter: Pick<RunFilter, 'since' | 'until'>): void {
  if (filter.since) query.where('created_at', '>=', filter.since);
  if (filter.until) query.where('created_at', '<', filter.until);
}

/** Text search over the workflow name, the run's message and its codebase's name, case-insensitive. */
function applySearch(knex: Knex, query: Knex.QueryBuilder, search: string | undefined): void {
  if (!search) return;
  const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  query.where((q) =>
    q
      .whereRaw(`lower(workflow_name) like ? escape '\\'`, [pattern])
      .orWhereRaw(`lower(coalesce(message, '')) like ? escape '\\'`, [pattern])
      .orWhereIn(
        'codebase_id',
        knex('codebases').select('id').whereRaw(`lower(name) like ? escape '\\'`, [pattern]),
      ),
  );
}

/** listRuns with a text search on top. */
export async function searchRuns(
  knex: Knex,
  filter: RunFilter & { search?: string },
): Promise<WorkflowRun[]> {
  return listRuns(knex, filter, (query) => applySearch(knex, query, filter.search));
}
