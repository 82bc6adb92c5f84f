// Names and shapes shared by workflow schedules' Temporal Schedules, their scheduledRun
// workflow, its activity and the API.

export const SCHEDULED_RUN_WORKFLOW_TYPE = 'scheduledRun';

/** Cairn's schedules of workflows start with this; the cleanup schedule does not. */
export const WORKFLOW_SCHEDULE_PREFIX = 'cairn-wf-';

/** One Temporal Schedule per codebase and workflow: the id says which. */
export function workflowScheduleId(codebaseId: string, workflowName: string): string {
  return `${WORKFLOW_SCHEDULE_PREFIX}${codebaseId}-${workflowName}`;
}

/** What a schedule's action starts: the definition is read again when it fires. */
export interface ScheduledRunInput {
  scheduleId: string;
  codebaseId: string;
  workflowName: string;
  /** Keep CairnRunStatus up to date on the run it starts. */
  searchAttributes?: boolean;
}

/** The run a firing stored, or why it stored none (the workflow or its schedule is gone). */
export type ScheduledRunStart = { runId: string } | { skipped: string };
