import { MockActivityEnvironment } from '@temporalio/testing';
import type { ServiceContext } from '../../../../services/context.js';
import { createNodeActivities } from '../../../../activities/runs/node-activities.js';
export { isAlive, readPid, rejection, waitFor } from '../../../support/processes.js';
import type { AssistantNodeInput, BashNodeInput, NodeOutcome } from '../../../../domain/runs/run-contract.js';

/** Runs a node activity inside Temporal's own activity harness, as a worker would. */
export function nodeRunner(deps: ServiceContext) {
  const activities = createNodeActivities(deps);
  return {
    bash(input: BashNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runBashNode, input);
    },
    assistant(input: AssistantNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runAssistantNode, input);
    },
  };
}
