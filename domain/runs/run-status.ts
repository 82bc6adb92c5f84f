/** Every status a workflow run can be in, in the order the docs and counts list them. */
export const RUN_STATUSES = [
  'pending',
  'running',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'abandoned',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses in which the run's execution has ended: a run entering one gets its completed_at. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];

/** Statuses of a run still under way: its worktree and its execution are in use. */
export const UNFINISHED_RUN_STATUSES: readonly RunStatus[] = RUN_STATUSES.filter(
  (status) => !TERMINAL_RUN_STATUSES.includes(status),
);
