import { proxyActivities } from '@temporalio/workflow';
import { CLONE_FAILED, REGISTRATION_REFUSED } from '../../domain/codebases/registration-failures.js';
import type { RegistrationActivities } from '../../activities/codebase-registration/activities.js';
import type { CloneInput } from '../../services/codebases/clone-and-register.js';
import type { RegistrationOutcome } from '../../services/codebases/registration-outcome.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../domain/heartbeats.js';

/**
 * Registers a codebase by URL: clone, env-leak gate, record. A workflow so that a clone survives
 * an API restart, transient network failures are retried, and concurrent registrations of one
 * repository (same workflow id) share one clone.
 */
export async function codebaseRegistration(input: CloneInput): Promise<RegistrationOutcome> {
  const { cloneAndRegisterCodebase } = proxyActivities<RegistrationActivities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: {
      initialInterval: '2 seconds',
      maximumAttempts: 4,
      nonRetryableErrorTypes: [CLONE_FAILED, REGISTRATION_REFUSED],
    },
  });
  return cloneAndRegisterCodebase(input);
}
