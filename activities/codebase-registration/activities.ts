import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  cloneAndRegister,
  CloneFailure,
  type CloneInput,
} from '../../services/codebases/clone-and-register.js';
import {
  RegistrationError,
  type RegistrationOutcome,
} from '../../services/codebases/registration-outcome.js';
import type { ServiceContext } from '../../services/context.js';

import { CLONE_FAILED, REGISTRATION_REFUSED } from '../../domain/codebases/registration-failures.js';

export function createRegistrationActivities(context: ServiceContext) {
  return {
    async cloneAndRegisterCodebase(input: CloneInput): Promise<RegistrationOutcome> {
      const activity = Context.current();
      try {
        return await cloneAndRegister(context, input, {
          signal: activity.cancellationSignal,
          heartbeat: () => activity.heartbeat(),
        });
      } catch (error) {
        if (error instanceof CloneFailure) {
          throw ApplicationFailure.create({
            message: error.message,
            type: CLONE_FAILED,
            nonRetryable: !error.transient,
          });
        }
        if (error instanceof RegistrationError) {
          throw ApplicationFailure.create({
            message: error.message,
            type: REGISTRATION_REFUSED,
            nonRetryable: true,
            details: [error.code],
          });
        }
        throw error;
      }
    },
  };
}

export type RegistrationActivities = ReturnType<typeof createRegistrationActivities>;
