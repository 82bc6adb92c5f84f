/**
 * Workflow schedules in Temporal: made to match the files (created, updated, removed), and read,
 * paused, unpaused and triggered for the API. Each is a Temporal Schedule whose action starts a
 * scheduledRun workflow; it shows in the Temporal Web UI as well.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import {
  SCHEDULED_RUN_WORKFLOW_TYPE,
  WORKFLOW_SCHEDULE_PREFIX,
  type ScheduledRunInput,
} from '../../domain/runs/schedule-contract.js';
import type { ScheduleOverlap } from '../../domain/workflow-definitions/index.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { plannedSchedules, type PlannedSchedule } from './schedule-plan.js';

export interface ScheduleTemporalAccess {
  client: Client;
  /** The core queue: the scheduledRun workflows run there. */
  taskQueue: string;
  searchAttributes?: boolean;
}

const OVERLAP: Record<ScheduleOverlap, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

/** Whose schedules these are: several deployments (or test suites) may share one Temporal. */
const OWNER_MEMO = 'cairnTaskQueue';

export interface ScheduleView {
  id: string;
  codebaseId: string;
  codebaseName: string;
  workflowName: string;
  source: string;
  cron: string;
  timezone: string | null;
  /** The message its runs start with (read again from the file when it fires). */
  message: string;
  overlap: ScheduleOverlap;
  catchupWindowMs: number;
  paused: boolean;
  note: string | null;
  /** The next times it fires (up to 3). */
  nextRunsAt: string[];
  /** When it last fired, if it has. */
  lastFiredAt: string | null;
}

function specOf(planned: PlannedSchedule): ScheduleSpec {
  const { cron, timezone } = planned.schedule;
  return { cronExpressions: [cron], ...(timezone && { timezone }) };
}

export function scheduleClient(access: ScheduleTemporalAccess) {
  const { client, taskQueue } = access;
  const actionOf = (planned: PlannedSchedule): ScheduleOptionsAction => {
    const input: ScheduledRunInput = {
      scheduleId: planned.id,
      codebaseId: planned.codebaseId,
      workflowName: planned.workflowName,
      searchAttributes: access.searchAttributes === true,
    };
    return {
      type: 'startWorkflow',
      workflowType: SCHEDULED_RUN_WORKFLOW_TYPE,
      taskQueue,
      workflowId: `scheduled-${planned.codebaseId}-${planned.workflowName}`,
      args: [input],
    };
  };
  const policiesOf = (planned: PlannedSchedule) => ({
    overlap: OVERLAP[planned.schedule.overlap],
    catchupWindow: planned.schedule.catchupWindowMs,
  });

  /** Creates the schedule, or brings an existing one up to date (keeping it paused or not). */
  const put = async (planned: PlannedSchedule) => {
    try {
      await client.schedule.create({
        scheduleId: planned.id,
        spec: specOf(planned),
        action: actionOf(planned),
        policies: policiesOf(planned),
        memo: { [OWNER_MEMO]: taskQueue },
        // A bundled workflow's schedule waits for a person to turn it on for their codebase.
        state:
          planned.source === 'bundled'
            ? { paused: true, note: 'bundled workflow: unpause to run it on this codebase' }
            : {},
      });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await client.schedule.getHandle(planned.id).update((previous) => ({
        ...previous,
        spec: specOf(planned),
        action: actionOf(planned),
        policies: { ...previous.policies, ...policiesOf(planned) },
      }));
    }
  };

  /** The ids of this deployment's workflow schedules that Temporal lists. */
  const existingIds = async (): Promise<string[]> => {
    const ids: string[] = [];
    for await (const summary of client.schedule.list())
      if (summary.scheduleId.startsWith(WORKFLOW_SCHEDULE_PREFIX) && summary.memo?.[OWNER_MEMO] === taskQueue)
        ids.push(summary.scheduleId);
    return ids;
  };

  const describe = async (planned: PlannedSchedule): Promise<ScheduleView> => {
    const description = await client.schedule.getHandle(planned.id).describe();
    const last = description.info.recentActions.at(-1);
    return {
      id: planned.id,
      codebaseId: planned.codebaseId,
      codebaseName: planned.codebaseName,
      workflowName: planned.workflowName,
      source: planned.source,
      cron: planned.schedule.cron,
      timezone: planned.schedule.timezone ?? null,
      message: planned.schedule.message,
      overlap: planned.schedule.overlap,
      catchupWindowMs: planned.schedule.catchupWindowMs,
      paused: description.state.paused,
      note: description.state.note ?? null,
      nextRunsAt: description.info.nextActionTimes.slice(0, 3).map((time) => time.toISOString()),
      lastFiredAt: last ? last.takenAt.toISOString() : null,
    };
  };

  return {
    /**
     * Makes Temporal's schedules match the files: each planned one created or updated, each of
     * this deployment's others (a file removed, a schedule taken out) deleted.
     */
    async sync(context: ServiceContext): Promise<PlannedSchedule[]> {
      const planned = await plannedSchedules(context);
      for (const schedule of planned) await put(schedule);
      const wanted = new Set(planned.map((schedule) => schedule.id));
      for (const id of await existingIds())
        if (!wanted.has(id))
          await client.schedule
            .getHandle(id)
            .delete()
            .catch((error: unknown) => {
              if (!(error instanceof ScheduleNotFoundError)) throw error;
            });
      return planned;
    },

    /** Every schedule, after a sync, with its state and next times. */
    async list(context: ServiceContext): Promise<ScheduleView[]> {
      const planned = await this.sync(context);
      return Promise.all(planned.map(describe));
    },

    /** One schedule (after a sync), or a 404 naming it. */
    async find(context: ServiceContext, id: string): Promise<ScheduleView> {
      return describe(await this.planned(context, id));
    },

    /** The plan of one schedule, after one sync; a 404 naming it when there is none. */
    async planned(context: ServiceContext, id: string): Promise<PlannedSchedule> {
      const planned = (await this.sync(context)).find((schedule) => schedule.id === id);
      if (!planned) throw ServiceError.notFound(`No workflow schedule with id ${id}.`, 'schedule_not_found');
      return planned;
    },

    async pause(context: ServiceContext, id: string, note?: string): Promise<ScheduleView> {
      const planned = await this.planned(context, id);
      await client.schedule.getHandle(id).pause(note ?? 'paused through the Cairn API');
      return describe(planned);
    },

    async unpause(context: ServiceContext, id: string, note?: string): Promise<ScheduleView> {
      const planned = await this.planned(context, id);
      await client.schedule.getHandle(id).unpause(note ?? 'unpaused through the Cairn API');
      return describe(planned);
    },

    /** Fires it now, whether paused or not, with its own overlap policy. */
    async trigger(context: ServiceContext, id: string): Promise<ScheduleView> {
      const planned = await this.planned(context, id);
      await client.schedule.getHandle(id).trigger(OVERLAP[planned.schedule.overlap]);
      return describe(planned);
    },
  };
}

export type ScheduleClient = ReturnType<typeof scheduleClient>;
