import type { Page, Run, RunDetail } from '../api-types.js';
import { ApiRefusal } from '../api-client.js';
import { ClientExit, EXIT } from '../exit-codes.js';
import { followRun } from '../run-follow.js';
import type { ClientSession } from '../session.js';
import { formatCost, table } from '../terminal.js';

const runPath = (id: string) => `/api/workflows/runs/${encodeURIComponent(id)}`;

/** A missing run is "no run <id>", not the API's sentence. */
async function withRun<T>(id: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiRefusal && error.problem.status === 404)
      throw new ClientExit(`no run ${id}`, EXIT.refused);
    throw error;
  }
}

export async function listRuns(
  session: ClientSession,
  options: { status?: string; workflow?: string; codebase?: string; limit?: string },
): Promise<number> {
  const page = await session.api.get<Page<Run>>('/api/workflows/runs', {
    status: options.status,
    workflowName: options.workflow,
    codebaseId: options.codebase,
    limit: options.limit,
  });
  if (session.json) {
    for (const run of page.items) session.term.out(JSON.stringify(run));
    return EXIT.ok;
  }
  const rows = page.items.map((run) => [
    run.runId,
    run.workflowName,
    run.status,
    run.currentNode ?? '',
    formatCost(run.totalCostUsd),
    run.createdAt,
  ]);
  for (const line of table([['ID', 'WORKFLOW', 'STATUS', 'NODE', 'COST', 'CREATED'], ...rows]))
    session.term.out(line);
  if (page.nextCursor) session.term.err(session.term.dim('(more: use --limit, or --status to narrow)'));
  return EXIT.ok;
}

export async function showRun(session: ClientSession, id: string): Promise<number> {
  const detail = await withRun(id, () => session.api.get<RunDetail>(runPath(id)));
  if (session.json) {
    session.term.out(JSON.stringify(detail));
    return EXIT.ok;
  }
  const { run } = detail;
  const t = session.term;
  const lines = [
    `${t.bold(run.runId)}  ${run.workflowName}  ${run.status}`,
    `message:  ${run.message ?? ''}`,
    `node:     ${run.currentNode ?? '-'}`,
    `tokens:   ${run.totalTokens}   cost: ${formatCost(run.totalCostUsd)}`,
    `created:  ${run.createdAt}${run.completedAt ? `   ended: ${run.completedAt}` : ''}`,
  ];
  if (run.error) lines.push(t.red(`error:    ${run.error}`));
  if (detail.temporalUrl) lines.push(t.dim(`temporal: ${detail.temporalUrl}`));
  for (const line of lines) t.out(line);
  return EXIT.ok;
}

/** The run's history with node logs and tool calls; `--follow` keeps going until it ends. */
export async function runLogs(
  session: ClientSession,
  id: string,
  options: { follow?: boolean },
): Promise<number> {
  const code = await withRun(id, () =>
    followRun(session.api, session.term, id, {
      json: session.json,
      noWait: false,
      logs: true,
      once: !options.follow,
    }),
  );
  return options.follow ? code : EXIT.ok;
}

type Operation = 'approve' | 'reject' | 'cancel' | 'resume' | 'abandon';

const DONE: Record<Operation, string> = {
  approve: 'approved',
  reject: 'rejected',
  cancel: 'cancelled',
  resume: 'resumed',
  abandon: 'abandoned',
};

export async function operateRun(
  session: ClientSession,
  operation: Operation,
  id: string,
  body: { comment?: string; reason?: string } = {},
): Promise<number> {
  const run = await withRun(id, () => session.api.post<Run>(`${runPath(id)}/${operation}`, body));
  if (session.json) session.term.out(JSON.stringify(run));
  else session.term.out(`${DONE[operation]} run ${run.runId}: now ${run.status}`);
  return EXIT.ok;
}

/** Starts an ended run again; `--follow` follows the new run as `cairn workflow run` does. */
export async function rerunRun(
  session: ClientSession,
  id: string,
  options: { follow?: boolean } = {},
): Promise<number> {
  const run = await withRun(id, () => session.api.post<Run>(`${runPath(id)}/rerun`));
  if (!options.follow) {
    if (session.json) session.term.out(JSON.stringify(run));
    else session.term.out(`started run ${run.runId}, a re-run of ${id}`);
    return EXIT.ok;
  }
  if (!session.json) session.term.err(session.term.dim(`started run ${run.runId}, a re-run of ${id}`));
  return followRun(session.api, session.term, run.runId, { json: session.json, noWait: false, logs: false });
}

export async function deleteRun(session: ClientSession, id: string): Promise<number> {
  await withRun(id, () => session.api.request('DELETE', runPath(id)));
  if (!session.json) session.term.out(`deleted run ${id}`);
  return EXIT.ok;
}
