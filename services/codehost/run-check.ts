import { findRun, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import type { ChatAddress, CodeHostPlatform } from '../../domain/chat/chat-address.js';
import { parseThreadKey } from '../../domain/codehost/code-host-request.js';
import {
  RunStatusRefused,
  type CodeHostClient,
  type RunStatusEnd,
} from '../../infra/codehost/code-host-client.js';
import type { ServiceContext } from '../context.js';

// A workflow run started in a pull request (merge request) shows on its head as `cairn/<workflow>`:
// a check run on GitHub, a commit status on GitLab; in progress while the run goes, then its
// outcome. Credentials that may not write them (a personal token on GitHub: only Apps may; a
// GitLab token without the api scope or the Developer role) are logged once and left alone.

export interface RunCheckInput {
  address: ChatAddress;
  runId: string;
}

/** What the log says when a platform refuses, once per repository. */
const REFUSALS: Record<CodeHostPlatform, { event: string; message: string }> = {
  github: {
    event: 'code_host.check_runs_refused',
    message: 'GitHub refused check runs: they need a GitHub App (GITHUB_APP_ID) with the Checks permission',
  },
  gitlab: {
    event: 'code_host.commit_statuses_refused',
    message: 'GitLab refused commit statuses: GITLAB_TOKEN needs the api scope and the Developer role',
  },
};

/** Repositories whose run statuses were refused, logged once each by a service (a process has one). */
const refusedOnce = new WeakMap<ServiceContext, Set<string>>();

function refused(
  context: ServiceContext,
  platform: CodeHostPlatform,
  repositoryPath: string,
  error: RunStatusRefused,
): undefined {
  const logged = refusedOnce.get(context) ?? new Set<string>();
  refusedOnce.set(context, logged);
  const key = `${platform}:${repositoryPath}`;
  if (!logged.has(key)) {
    logged.add(key);
    const { event, message } = REFUSALS[platform];
    context.logger.warn({ event, repository: repositoryPath, detail: error.message }, message);
  }
  return undefined;
}

function runLink(context: ServiceContext, runId: string): string | undefined {
  const base = context.environment.github.publicUrl;
  return base ? `${base}/runs/${encodeURIComponent(runId)}` : undefined;
}

/** The run's status on its pull request's head, in progress; undefined where there is none. */
export async function startRunCheck(
  context: ServiceContext,
  client: CodeHostClient,
  input: RunCheckInput,
): Promise<string | undefined> {
  if (!client.runStatuses) return undefined;
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
    return await client.runStatuses.start({
      repositoryPath: thread.repositoryPath,
      headSha: head.sha,
      name: `cairn/${run.workflowName}`,
      externalId: run.id,
      detailsUrl: runLink(context, run.id),
      title: `${run.workflowName} is running`,
      summary: `Workflow run \`${run.id}\` started from this pull request.`,
    });
  } catch (error) {
    if (error instanceof RunStatusRefused)
      return refused(context, client.platform, thread.repositoryPath, error);
    throw error;
  }
}

const CONCLUSIONS: Partial<Record<WorkflowRun['status'], RunStatusEnd['conclusion']>> = {
  completed: 'success',
  failed: 'failure',
  cancelled: 'cancelled',
  abandoned: 'cancelled',
};

/** What the run's status says at the end: the outcome, and the run's error when it failed. */
export function checkRunEnd(run: WorkflowRun): RunStatusEnd {
  const conclusion = CONCLUSIONS[run.status] ?? 'neutral';
  const cost = run.totalCostUsd > 0 ? ` Cost: $${run.totalCostUsd.toFixed(2)}.` : '';
  const error = run.error ? `\n\n> ${run.error.slice(0, 1_000).split('\n').join('\n> ')}` : '';
  return {
    conclusion,
    title: `${run.workflowName} ${run.status}`,
    summary: `Workflow run \`${run.id}\` ${run.status}.${cost}${error}`,
  };
}

/** The run's status completed with its outcome (doing it twice changes nothing). */
export async function completeRunCheck(
  context: ServiceContext,
  client: CodeHostClient,
  input: RunCheckInput & { checkRunId: string },
): Promise<void> {
  if (!client.runStatuses) return;
  const run = await findRun(context.db.knex, input.runId);
  if (!run) return;
  const { repositoryPath } = parseThreadKey(input.address.chatId);
  try {
    await client.runStatuses.complete(repositoryPath, input.checkRunId, checkRunEnd(run));
  } catch (error) {
    if (error instanceof RunStatusRefused) return refused(context, client.platform, repositoryPath, error);
    throw error;
  }
}
