/**
 * A workflow schedule fired: the run it starts is stored here, from the definition as the
 * codebase's checkout has it now (a cloned codebase's checkout is brought up to date first), on
 * the schedule's own conversation. The scheduledRun workflow then starts and awaits it.
 */
import { findCodebase, type Codebase } from '../../db/repositories/codebases.js';
import {
  createConversation,
  findConversationByPlatformId,
  releasePlatformId,
} from '../../db/repositories/conversations.js';
import type { ScheduledRunInput, ScheduledRunStart } from '../../domain/runs/schedule-contract.js';
import { bringCheckoutUpToDate } from '../codebases/checkout-update.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { storeRun } from '../runs/run-operations.js';
import { plannedSchedules } from './schedule-plan.js';

/** Conversations of schedules: one per schedule, where all its runs go. */
export const SCHEDULE_PLATFORM = 'schedule';

async function scheduleConversation(
  deps: ServiceContext,
  scheduleId: string,
  codebase: Codebase,
  workflowName: string,
) {
  const { knex } = deps.db;
  const found = await findConversationByPlatformId(knex, SCHEDULE_PLATFORM, scheduleId);
  if (found && !found.deletedAt) return found;
  if (found) await releasePlatformId(knex, found);
  return createConversation(knex, {
    platform: SCHEDULE_PLATFORM,
    platformConversationId: scheduleId,
    codebaseId: codebase.id,
    title: `Scheduled ${workflowName}`,
  });
}

/** Stores the run a firing starts, or says why there is none (the codebase, workflow or schedule is gone). */
export async function startScheduledRun(
  deps: ServiceContext,
  input: ScheduledRunInput,
): Promise<ScheduledRunStart> {
  const codebase = await findCodebase(deps.db.knex, input.codebaseId);
  if (!codebase) return { skipped: `codebase ${input.codebaseId} is no longer registered` };
  await bringCheckoutUpToDate(deps, codebase, 'schedule');
  const planned = (await plannedSchedules(deps)).find((schedule) => schedule.id === input.scheduleId);
  if (!planned) return { skipped: `workflow ${input.workflowName} no longer has this schedule` };
  const conversation = await scheduleConversation(deps, input.scheduleId, codebase, input.workflowName);
  try {
    const run = await storeRun(deps, {
      workflowName: input.workflowName,
      message: planned.schedule.message,
      conversationId: conversation.id,
      scheduleId: input.scheduleId,
    });
    return { runId: run.id };
  } catch (error) {
    if (error instanceof ServiceError) return { skipped: error.detail };
    throw error;
  }
}
