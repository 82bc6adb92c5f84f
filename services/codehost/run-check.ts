import { findRun, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { parseThreadKey } from '../../domain/codehost/code-host-request.js';
import {
  CheckRunsRefused,
  type CheckRunEnd,
  type CodeHostClient,
} from '../../infra/codehost/code-host-client.js';
import type { ServiceContext } from '../context.js';

// A workflow run started in a GitHub pull request shows as a check run on the pull request's
// head (`cairn/<workflow>`): in progress while the run goes, then its outcome. Credentials that
// may not write checks (a personal token: only Apps may) are logged once and left alone.

export interface RunCheckInput {
  address: ChatAddress;
  runId: string;
}

/** Repositories whose check runs were refused, logged once each by a service (a process has one). */
const refusedOnce = new WeakMap<ServiceContext, Set<string>>();

function refused(context: ServiceContext, repositoryPath: string, error: CheckRunsRefused): undefined {
  const logged = refusedOnce.get(context) ?? new Set<string>();
  refusedOnce.set(context, logged);
  if (!logged.has(repositoryPath)) {
    logged.add(repositoryPath);
    context.logger.warn(
      { event: 'code_host.check_runs_refused', repository: repositoryPath, detail: error.message },
      'GitHub refused check runs: they need a GitHub App (GITHUB_APP_ID) with the Checks permission',
    );
  }
  return undefined;
}

function runLink(context: ServiceContext, runId: string): string | undefined {
  const base = context.environment.github.publicUrl;
  return base ? `${base}/runs/${encodeURIComponent(runId)}` : undefined;
}

/** The check run of a run started in a GitHub pull request, in progress; undefined where there is none. */
export async function startRunCheck(
  context: ServiceContext,
  client: CodeHostClient,
  input: RunCheckInput,
): Promise<string | undefined> {
  if (input.address.platform !== 'github' || !client.checkRuns) return undefined;
  const thread = parseThreadKey(input.address.chatId);
  if (thread.kind !== 'pull') return undefined;
  const run = await findRun(context.db.knex, input.runId);
  if (!run) return undefined;
  const head = await client.pullRequestHead({
    repositoryPath: thread.repositoryPath,
    kind: 'pull',
    number: thread.number,
  });
  try {
    return await client.checkRuns.start({
      repositoryPath: thread.repositoryPath,
      headSha: head.sha,
      name: `cairn/${run.workflowName}`,
      externalId: run.id,
      detailsUrl: runLink(context, run.id),
      title: `${run.workflowName} is running`,
      summary: `Workflow run \`${run.id}\` started from this pull request.`,
    });
  } catch (error) {
    if (error instanceof CheckRunsRefused) return refused(context, thread.repositoryPath, error);
    throw error;
  }
}

const CONCLUSIONS: Partial<Record<WorkflowRun['status'], CheckRunEnd['conclusion']>> = {
  completed: 'success',
  failed: 'failure',
  cancelled: 'cancelled',
  abandoned: 'cancelled',
};

/** What the check run says at the end: the outcome, and the run's error when it failed. */
export function checkRunEnd(run: WorkflowRun): CheckRunEnd {
  const conclusion = CONCLUSIONS[run.status] ?? 'neutral';
  const cost = run.totalCostUsd > 0 ? ` Cost: $${run.totalCostUsd.toFixed(2)}.` : '';
  const error = run.error ? `\n\n> ${run.error.slice(0, 1_000).split('\n').join('\n> ')}` : '';
  return {
    conclusion,
    title: `${run.workflowName} ${run.status}`,
    summary: `Workflow run \`${run.id}\` ${run.status}.${cost}${error}`,
  };
}

/** The run's check run completed with its outcome (an update: doing it twice changes nothing). */
export async function completeRunCheck(
  context: ServiceContext,
  client: CodeHostClient,
  input: RunCheckInput & { checkRunId: string },
): Promise<void> {
  if (!client.checkRuns) return;
  const run = await findRun(context.db.knex, input.runId);
  if (!run) return;
  const { repositoryPath } = parseThreadKey(input.address.chatId);
  try {
    await client.checkRuns.complete(repositoryPath, input.checkRunId, checkRunEnd(run));
  } catch (error) {
    if (error instanceof CheckRunsRefused) return refused(context, repositoryPath, error);
    throw error;
  }
}
