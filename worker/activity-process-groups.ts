import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { observeProcessGroups } from '../infra/processes/process-groups.js';
import { attemptRecorder, stopEarlierAttempts } from '../services/processes/attempt-process-groups.js';
import type { ServiceContext } from '../services/context.js';

/**
 * Around every activity: a retry first kills what earlier attempts of the same activity left
 * running, and every attempt records the process groups it starts while they run
 * (services/processes/attempt-process-groups.ts).
 */
export function processGroupInterceptors(context: ServiceContext): ActivityInterceptorsFactory {
  const deps = { knex: context.db.knex, logger: context.logger };
  return (activity) => ({
    inbound: {
      async execute(input, next) {
        const { workflowExecution, activityId, attempt } = activity.info;
        // An activity started on its own, outside a workflow, has nothing to retry it in.
        if (!workflowExecution) return next(input);
        // Retries keep the run and the activity id; a new run (continue-as-new) starts afresh.
        const identity = {
          activityKey: `${workflowExecution.workflowId}/${workflowExecution.runId}/${activityId}`,
          attempt,
        };
        if (attempt > 1) await stopEarlierAttempts(deps, identity);
        const recorder = attemptRecorder(deps, identity);
        try {
          return await observeProcessGroups(recorder, () => next(input));
        } finally {
          await recorder.settled();
        }
      },
    },
  });
}
