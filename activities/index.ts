import type { RegistrationContext } from './codebase-registration/registration-context.js';
import { createRegistrationActivities } from './codebase-registration/activities.js';
import { createSystemActivities } from './system/system-activities.js';
import { createCleanupActivities } from './cleanup/activities.js';
import { createConversationActivities, createTurnActivities } from './conversations/activities.js';
import { createRunActivities } from './runs/run-activities.js';
import { createNodeActivities } from './runs/node-activities.js';

/** What activities need from the running service: the database, settings, a logger. */
export type ActivityDependencies = RegistrationContext;

/** Activities served on the core task queue. */
export function createCoreActivities(deps: ActivityDependencies) {
  return {
    ...createSystemActivities(deps),
    ...createRegistrationActivities(deps),
    ...createCleanupActivities(deps),
    ...createConversationActivities(deps),
    ...createRunActivities(deps),
  };
}

/** Activities served on the assistant task queue (bounded by the conversation limit). */
export function createAssistantActivities(deps: ActivityDependencies) {
  const { runAssistantNode } = createNodeActivities(deps);
  return { ...createSystemActivities(deps), ...createTurnActivities(deps), runAssistantNode };
}

/** The slower steps of workflow runs (preparing the worktree, bash nodes), on a queue of their own. */
export function createNodeQueueActivities(deps: ActivityDependencies) {
  const { runBashNode } = createNodeActivities(deps);
  const { prepareRun } = createRunActivities(deps);
  return { ...createSystemActivities(deps), runBashNode, prepareRun };
}
