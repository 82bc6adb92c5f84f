import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common';
import { createHash } from 'node:crypto';
import { identityForUrl } from './identity-for-url.js';
import type { CloneInput } from './clone-and-register.js';
import { RegistrationError, type RegistrationOutcome } from './registration-outcome.js';
import { CLONE_FAILED, REGISTRATION_REFUSED } from '../../domain/codebases/registration-failures.js';

export interface TemporalAccess {
  client: Client;
  taskQueue: string;
  /** The namespace has Cairn's search attributes, so run executions can carry them. */
  searchAttributes?: boolean;
}

/**
 * Another registration of the repository is running. Thrown instead of waiting for it where the
 * wait would hold a worker's activity slot: enough such waits would leave the clone itself
 * without one.
 */
export class RegistrationInProgress extends Error {
  constructor(url: string) {
    super(`the repository ${url} is being registered`);
    this.name = 'RegistrationInProgress';
  }
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

async function outcomeOf(handle: WorkflowHandle): Promise<RegistrationOutcome> {
  try {
    return (await handle.result()) as RegistrationOutcome;
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

/**
 * Runs the codebaseRegistration workflow and waits for its outcome. A registration of the same
 * repository already in flight is joined rather than repeated: the joiner gets the codebase as
 * existing (200), and a joiner that consented retries when the leader was blocked without it.
 */
export async function registerByUrl(
  temporal: TemporalAccess,
  input: CloneInput,
  options: { whileRegistering?: 'wait' | 'come_back' } = {},
): Promise<RegistrationOutcome> {
  const identity = identityForUrl(input.url);
  const workflowId = registrationWorkflowId(identity.key);
  let handle: WorkflowHandle;
  try {
    handle = await temporal.client.workflow.start('codebaseRegistration', {
      taskQueue: temporal.taskQueue,
      workflowId,
      workflowIdConflictPolicy: 'FAIL',
      workflowExecutionTimeout: '1 hour',
      args: [input],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    if (options.whileRegistering === 'come_back') throw new RegistrationInProgress(input.url);
    const leader = await outcomeOf(temporal.client.workflow.getHandle(workflowId));
    if (leader.outcome === 'registered') return { ...leader, created: false };
    return input.allowEnvKeys ? registerByUrl(temporal, input) : leader;
  }
  return outcomeOf(handle);
}
