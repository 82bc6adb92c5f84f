import type { Gitlab } from '@gitbeaker/rest';
import { RunStatusRefused, type RunStatusEnd, type RunStatuses } from './code-host-client.js';
import { call, gitlabWait, responseOf } from './gitlab-calls.js';

// A workflow run on a merge request's head commit as a GitLab commit status named
// `cairn/<workflow>` (POST /projects/:id/statuses/:sha): running, then success, failed or
// canceled. GitLab keeps one status per name, ref and pipeline, and refuses to set a running one
// running again (400): a start finds a status already running and takes it as it is.

export type CommitStatusState = 'running' | 'success' | 'failed' | 'canceled';

const STATES: Record<RunStatusEnd['conclusion'], CommitStatusState> = {
  success: 'success',
  failure: 'failed',
  cancelled: 'canceled',
  // GitLab has no neutral state, and its skipped cannot follow running: a run that ended without
  // an outcome of its own (a cancel it had not taken yet) shows as canceled.
  neutral: 'canceled',
};

/** The GitLab state a run's end shows as. */
export function commitStatusState(conclusion: RunStatusEnd['conclusion']): CommitStatusState {
  return STATES[conclusion];
}

// GitLab keeps a status's description short (a varchar of 255).
const DESCRIPTION_LIMIT = 255;

function description(text: string): string {
  return text.length <= DESCRIPTION_LIMIT ? text : `${text.slice(0, DESCRIPTION_LIMIT - 1)}…`;
}

/** Where the run's status is: the completion names the same ref and pipeline, so it ends that status. */
interface StatusPlace {
  sha: string;
  name: string;
  ref: string;
  pipelineId?: number;
  targetUrl?: string;
}

interface CommitStatus {
  name: string;
  status: string;
  ref: string;
  pipeline_id?: number;
}

/** A 403 that is no rate limit: the token may not set statuses (no `api` scope, or below Developer). */
async function statusCall<T>(work: () => Promise<T>): Promise<T> {
  return call(async () => {
    try {
      return await work();
    } catch (error) {
      if (responseOf(error)?.status === 403 && gitlabWait(error) === undefined)
        throw new RunStatusRefused(`GitLab refused commit statuses (403): ${(error as Error).message}`);
      throw error;
    }
  });
}

export function commitStatusesOf(api: Gitlab): RunStatuses {
  return {
    async start(status) {
      const project = status.repositoryPath;
      // A retried start (or another run of the same workflow on this commit) finds it running.
      const listed = (await statusCall(() =>
        api.Commits.allStatuses(project, status.headSha, { name: status.name }),
      )) as CommitStatus[];
      const running =
        listed.find(
          (found) => found.name === status.name && (found.status === 'running' || found.status === 'pending'),
        ) ??
        ((await statusCall(() =>
          api.Commits.editStatus(project, status.headSha, 'running', {
            name: status.name,
            description: description(status.title),
            ...(status.detailsUrl && { targetUrl: status.detailsUrl }),
          }),
        )) as CommitStatus);
      const place: StatusPlace = {
        sha: status.headSha,
        name: status.name,
        ref: running.ref,
        pipelineId: running.pipeline_id,
        targetUrl: status.detailsUrl,
      };
      return JSON.stringify(place);
    },

    async complete(repositoryPath, statusId, end) {
      const place = JSON.parse(statusId) as StatusPlace;
      await statusCall(() =>
        api.Commits.editStatus(repositoryPath, place.sha, commitStatusState(end.conclusion), {
          name: place.name,
          ref: place.ref,
          ...(place.pipelineId !== undefined && { pipelineId: place.pipelineId }),
          description: description(end.title),
          ...(place.targetUrl && { targetUrl: place.targetUrl }),
        }),
      );
    },
  };
}
