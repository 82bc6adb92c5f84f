import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { identityForUrl } from '../../../activities/codebase-registration/identity-for-url.js';
import type { CloneInput } from '../../../activities/codebase-registration/clone-and-register.js';
import {
  RegistrationError,
  type RegistrationOutcome,
} from '../../../activities/codebase-registration/registration-context.js';
import { CLONE_FAILED, REGISTRATION_REFUSED } from '../../../activities/codebase-registration/activities.js';

export interface TemporalAccess {
  client: Client;
  taskQueue: string;
}

/** One workflow id per repository, so concurrent registrations of one URL share one clone. */
export function registrationWorkflowId(repositoryKey: string): string {
  return `codebase-registration-${createHash('sha256').update(repositoryKey).digest('hex').slice(0, 32)}`;
}

function applicationFailureOf(error: unknown): ApplicationFailure | undefined {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure) return cause;
  }
  return undefined;
}

/** Runs the codebaseRegistration workflow and waits for its outcome. */
export async function registerByUrl(
  temporal: TemporalAccess,
  input: CloneInput,
): Promise<RegistrationOutcome> {
  const identity = identityForUrl(input.url);
  try {
    return (await temporal.client.workflow.execute('codebaseRegistration', {
      taskQueue: temporal.taskQueue,
      workflowId: registrationWorkflowId(identity.key),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowExecutionTimeout: '1 hour',
      args: [input],
    })) as RegistrationOutcome;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const failure = applicationFailureOf(error);
    if (failure?.type === CLONE_FAILED) throw new RegistrationError('clone_failed', failure.message);
    if (failure?.type === REGISTRATION_REFUSED) {
      const code = (failure.details?.[0] as RegistrationError['code'] | undefined) ?? 'invalid_url';
      throw new RegistrationError(code, failure.message);
    }
    throw error;
  }
}
