import { findConversationByRef } from '../../db/repositories/conversations.js';
import { mayBeRunning, runningDefinitions, searchRunsAsJson } from '../../db/repositories/run-dashboard.js';
import {
  findRunDetailAsJson,
  type RunDetailJson,
  type RunDetailProjections,
} from '../../db/repositories/run-detail.js';
import {
  findRun,
  findRunByWorker,
  listRunsAsJson,
  type RunFilter,
  type RunJson,
  type WorkflowRun,
} from '../../db/repositories/workflow-runs.js';
import type { JsonProjection } from '../../db/json-projection.js';
import type { NodeTimeLimit } from '../../domain/runs/node-time-limits.js';
import type { RunStatus } from '../../domain/runs/run-status.js';
import type { ServiceContext } from '../context.js';
import { definitionFactsOf } from './definition-facts.js';
import { readJsonPage, readKeysetPage, type KeysetPage } from '../keyset-page.js';
import { ServiceError } from '../service-error.js';

/** Where a page of runs ends: the next page starts strictly after it (newest first). */
export interface RunKey {
  createdAt: string;
  id: string;
}

/** A page of runs, each written as JSON by the database; `next` when another page follows. */
export type RunPage = KeysetPage<string, RunKey>;

/** What every run listing filters on. */
export interface RunListFilter {
  statuses?: RunStatus[];
  since?: string;
  until?: string;
  after?: RunKey;
  /** The page size. */
  limit: number;
}

const runKey = (row: RunJson): RunKey => row.position();

const repositoryFilter = (filter: RunListFilter, rows: number): RunFilter => ({
  statuses: filter.statuses,
  since: filter.since,
  until: filter.until,
  before: filter.after,
  limit: rows,
});

const noRun = (runId: string) => ServiceError.notFound(`No workflow run with id ${runId}.`);

/** The run, or a not-found refusal naming its id. */
export async function requireRun(context: ServiceContext, runId: string): Promise<WorkflowRun> {
  const run = await findRun(context.db.reader, runId);
  if (!run) throw noRun(runId);
  return run;
}

/**
 * Runs newest first, each as the JSON `projection` describes; a conversation may be named by its
 * id or its platform id.
 */
export async function listRunsPage(
  context: ServiceContext,
  filter: RunListFilter & { workflowName?: string; conversationId?: string; codebaseId?: string },
  projection: JsonProjection,
): Promise<RunPage> {
  const { reader } = context.db;
  const conversationId = filter.conversationId
    ? ((await findConversationByRef(reader, filter.conversationId))?.id ?? filter.conversationId)
    : undefined;
  return readJsonPage(
    filter.limit,
    (rows) =>
      listRunsAsJson(
        reader,
        {
          ...repositoryFilter(filter, rows),
          workflowName: filter.workflowName,
          conversationId,
          codebaseId: filter.codebaseId,
        },
        projection,
      ),
    runKey,
  );
}

/**
 * A run, its events and the runs it started, written by the database as JSON in one statement
 * (the run's fields, its events', its children's, as the projections describe them).
 */
export async function getRunDetailAsJson(
  context: ServiceContext,
  runId: string,
  projections: RunDetailProjections,
): Promise<RunDetailJson> {
  const detail = await findRunDetailAsJson(context.db.reader, runId, projections);
  if (detail === undefined) throw noRun(runId);
  return detail;
}

/** The id of the newest run started from a worker conversation (a chat platform's id). */
export async function runIdByWorker(context: ServiceContext, platformId: string): Promise<string> {
  const run = await findRunByWorker(context.db.knex, platformId);
  if (!run) throw ServiceError.notFound(`No run was started from conversation ${platformId}.`);
  return run.id;
}

/** The dashboard's filters beyond the common ones: exact workflow and codebase, and a text search. */
export interface DashboardFilter extends RunListFilter {
  workflowName?: string;
  codebaseId?: string;
  search?: string;
}

export interface DashboardPage extends RunPage {
  /** The running runs of the page: each node's time limits, to tell a run that went quiet too long. */
  nodeLimits: Record<string, NodeTimeLimit[]>;
  /** Runs per status within every other filter (workflow, codebase, dates, search), not the status one. */
  counts: Record<RunStatus, number>;
}

/**
 * Runs for the dashboard, each written as JSON by the database: the run's fields as `projection`
 * describes them, then its codebase's name, nodes ended and in all, and duration (to its end, or
 * to now); plus the counts per status.
 */
export async function dashboardRuns(
  context: ServiceContext,
  filter: DashboardFilter,
  projection: JsonProjection,
): Promise<DashboardPage> {
  const { reader } = context.db;
  const { since, until, search, workflowName, codebaseId } = filter;
  const now = new Date().toISOString();
  // The counts come with the page's rows, in its statement.
  let counts: Record<RunStatus, number> | undefined;
  const page = await readKeysetPage(
    filter.limit,
    async (rows) => {
      const found = await searchRunsAsJson(
        reader,
        { ...repositoryFilter(filter, rows), workflowName, codebaseId, search },
        projection,
        now,
        { since, until, workflowName, codebaseId, search },
      );
      counts = found.counts;
      return found.rows;
    },
    runKey,
  );
  const definitions = await runningDefinitions(
    reader,
    page.items.filter((row) => mayBeRunning(row.json)).map((row) => row.positionKey('id')),
  );
  const nodeLimits = Object.fromEntries(
    [...definitions].map(([runId, definition]) => [
      runId,
      definitionFactsOf(context, runId, definition).nodeLimits,
    ]),
  );
  return { items: page.items.map((row) => row.json), next: page.next, counts: counts!, nodeLimits };
}
