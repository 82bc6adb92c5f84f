import { findConversationByRef } from '../../db/repositories/conversations.js';
import {
  codebaseNames,
  countRunsByStatus,
  endedNodeCounts,
  searchRuns,
} from '../../db/repositories/run-dashboard.js';
import { listRunEvents, type RunEvent } from '../../db/repositories/run-events.js';
import {
  findRun,
  findRunByWorker,
  listRuns,
  type RunFilter,
  type WorkflowRun,
} from '../../db/repositories/workflow-runs.js';
import type { RunStatus } from '../../domain/runs/run-status.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';

/** Where a page of runs ends: the next page starts strictly after it (newest first). */
export interface RunKey {
  createdAt: string;
  id: string;
}

export interface RunPage<T> {
  items: T[];
  /** Present when another page follows. */
  next?: RunKey;
}

/** What every run listing filters on. */
export interface RunListFilter {
  statuses?: RunStatus[];
  since?: string;
  until?: string;
  after?: RunKey;
  /** The page size. */
  limit: number;
}

export interface RunDetail {
  run: WorkflowRun;
  events: RunEvent[];
}

/** Fetches one row more than a page: it only says whether another page follows. */
async function pageOf(
  limit: number,
  fetch: (rows: number) => Promise<WorkflowRun[]>,
): Promise<RunPage<WorkflowRun>> {
  const rows = await fetch(limit + 1);
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1]!;
  return { items, next: { createdAt: last.createdAt, id: last.id } };
}

const repositoryFilter = (filter: RunListFilter, rows: number): RunFilter => ({
  statuses: filter.statuses,
  since: filter.since,
  until: filter.until,
  before: filter.after,
  limit: rows,
});

/** The run, or a not-found refusal naming its id. */
export async function requireRun(context: ServiceContext, runId: string): Promise<WorkflowRun> {
  const run = await findRun(context.db.reader, runId);
  if (!run) throw ServiceError.notFound(`No workflow run with id ${runId}.`);
  return run;
}

/** Runs newest first; a conversation may be named by its id or its platform id. */
export async function listRunsPage(
  context: ServiceContext,
  filter: RunListFilter & { workflowName?: string; conversationId?: string; codebaseId?: string },
): Promise<RunPage<WorkflowRun>> {
  const { reader } = context.db;
  const conversationId = filter.conversationId
    ? ((await findConversationByRef(reader, filter.conversationId))?.id ?? filter.conversationId)
    : undefined;
  return pageOf(filter.limit, (rows) =>
    listRuns(reader, {
      ...repositoryFilter(filter, rows),
      workflowName: filter.workflowName,
      conversationId,
      codebaseId: filter.codebaseId,
    }),
  );
}

const withEvents = async (context: ServiceContext, run: WorkflowRun): Promise<RunDetail> => ({
  run,
  events: await listRunEvents(context.db.reader, run.id),
});

/** A run and its events. */
export async function getRunDetail(context: ServiceContext, runId: string): Promise<RunDetail> {
  return withEvents(context, await requireRun(context, runId));
}

/** The newest run started from a worker conversation (a chat platform's id), with its events. */
export async function getRunByWorker(context: ServiceContext, platformId: string): Promise<RunDetail> {
  const run = await findRunByWorker(context.db.knex, platformId);
  if (!run) throw ServiceError.notFound(`No run was started from conversation ${platformId}.`);
  return withEvents(context, run);
}

export interface DashboardRun {
  run: WorkflowRun;
  codebaseName: string | null;
  /** Distinct nodes that have ended. */
  nodesDone: number;
  nodesTotal: number;
  /** Since the run began, to its end or now; null before it began. */
  durationMs: number | null;
}

export interface DashboardPage extends RunPage<DashboardRun> {
  /** Runs per status within the same date range and search (not the status filter). */
  counts: Record<RunStatus, number>;
}

function nodesTotal(run: WorkflowRun): number {
  const nodes = (run.definition as { nodes?: unknown }).nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
}

function durationMs(run: WorkflowRun, now: number): number | null {
  if (!run.startedAt) return null;
  return (run.completedAt ? Date.parse(run.completedAt) : now) - Date.parse(run.startedAt);
}

/** Runs for the dashboard: each with its codebase, progress and duration, plus counts per status. */
export async function dashboardRuns(
  context: ServiceContext,
  filter: RunListFilter & { search?: string },
): Promise<DashboardPage> {
  const { reader } = context.db;
  const { since, until, search } = filter;
  const runs = await pageOf(filter.limit, (rows) =>
    searchRuns(reader, { ...repositoryFilter(filter, rows), search }),
  );
  const [ended, names, counts] = await Promise.all([
    endedNodeCounts(
      reader,
      runs.items.map((run) => run.id),
    ),
    codebaseNames(
      reader,
      runs.items.flatMap((run) => (run.codebaseId ? [run.codebaseId] : [])),
    ),
    countRunsByStatus(reader, { since, until, search }),
  ]);
  const now = Date.now();
  const items = runs.items.map((run) => ({
    run,
    codebaseName: run.codebaseId ? (names.get(run.codebaseId) ?? null) : null,
    nodesDone: ended.get(run.id) ?? 0,
    nodesTotal: nodesTotal(run),
    durationMs: durationMs(run, now),
  }));
  return { ...runs, items, counts };
}
