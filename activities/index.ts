import type { Database } from '../db/connection.js';
import type { Logger } from '../config/logger.js';
import { createSystemActivities } from './system/system-activities.js';

export interface ActivityDependencies {
  db: Database;
  logger: Logger;
}

/** Activities served on the core task queue. */
export function createCoreActivities(deps: ActivityDependencies) {
  return { ...createSystemActivities(deps) };
}

/** Activities served on the assistant task queue (bounded by the conversation limit). */
export function createAssistantActivities(deps: ActivityDependencies) {
  return { ...createSystemActivities(deps) };
}
