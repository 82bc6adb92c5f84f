import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type {
  SystemActivities,
  DatabaseCheck,
  WorkerIdentity,
} from '../../activities/system/system-activities.js';
import { assistantQueueFor } from '../../domain/task-queues.js';

export interface SystemCheckResult {
  database: DatabaseCheck;
  coreWorker: WorkerIdentity;
  assistantWorker: WorkerIdentity;
}

/** A round trip through both task queues: proves a deployment's workers serve both (tests, operators). */
export async function systemCheck(): Promise<SystemCheckResult> {
  const options = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } } as const;
  const core = proxyActivities<SystemActivities>(options);
  const assistant = proxyActivities<SystemActivities>({
    ...options,
    taskQueue: assistantQueueFor(workflowInfo().taskQueue),
  });
  const database = await core.checkDatabase();
  const coreWorker = await core.identifyWorker();
  const assistantWorker = await assistant.identifyWorker();
  return { database, coreWorker, assistantWorker };
}
