import { patched, proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import { NEEDS_CLONE, type CodeHostWorkInput } from '../../domain/codehost/code-host-work.js';
import type { CodeHostActivities } from '../../activities/codehost/code-host-activities.js';

// The platform's API may be down or rate limited: retried with backoff for a while (the client
// waits out Retry-After inside a call). A refusal no retry can change fails at once.
const retry: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 20,
};

const act = proxyActivities<CodeHostActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry,
});

// A first mention clones the repository (its own registration workflow, which this waits for).
// Requests that find the clone running come back every few seconds until it is done (their
// retries are not counted in attempts but bounded by the clone's hour).
const registration = proxyActivities<CodeHostActivities>({
  startToCloseTimeout: '75 minutes',
  scheduleToCloseTimeout: '80 minutes',
  heartbeatTimeout: '1 minute',
  retry: { ...retry, maximumAttempts: Number.POSITIVE_INFINITY },
});

/**
 * Acts on one code-host request recorded by the webhook: checks who asked and acknowledges it,
 * finds the repository's codebase (cloning it on its first mention), then hands the request to
 * the thread's conversation, whose reply (one tracking comment) is a workflow of its own.
 * A repository cloned already is one activity (two workflow tasks where three activities took
 * four); only a first mention goes on to the clone and the answer as steps of their own.
 */
export async function codeHostRequestWorkflow(input: CodeHostWorkInput): Promise<string> {
  // Workflows started before the codebase step replay their one activity.
  if (!patched('code-host-codebase-step')) return act.handleCodeHostRequest(input);
  // Those started before the one-step answer replay admission as a step of its own.
  if (patched('code-host-one-step-answer')) {
    const outcome = await act.handleCodeHostRequestOnCodebase(input);
    if (outcome !== NEEDS_CLONE) return outcome;
  } else {
    const admitted = await act.admitCodeHostRequest(input);
    if (admitted !== 'admitted') return admitted;
  }
  const codebase = await registration.codebaseForCodeHostRequest(input);
  return act.answerCodeHostRequest(input, codebase);
}
