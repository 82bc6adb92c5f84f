import type { Knex } from 'knex';

export interface RecordedProcessGroup {
  attempt: number;
  pgid: number;
  startTicks: string | null;
  host: string;
  workerPid: number;
}

const TABLE = 'activity_process_groups';

export async function recordProcessGroup(
  knex: Knex,
  group: RecordedProcessGroup & { activityKey: string; startedAt: string },
): Promise<void> {
  await knex(TABLE).insert({
    activity_key: group.activityKey,
    attempt: group.attempt,
    pgid: group.pgid,
    start_ticks: group.startTicks,
    host: group.host,
    worker_pid: group.workerPid,
    started_at: group.startedAt,
  });
}

export async function forgetProcessGroup(knex: Knex, activityKey: string, pgid: number): Promise<void> {
  await knex(TABLE).where({ activity_key: activityKey, pgid }).delete();
}

/** Groups recorded by attempts of this activity before `attempt`. */
export async function earlierAttemptGroups(
  knex: Knex,
  activityKey: string,
  attempt: number,
): Promise<RecordedProcessGroup[]> {
  const rows = (await knex(TABLE)
    .select('attempt', 'pgid', 'start_ticks', 'host', 'worker_pid')
    .where('activity_key', activityKey)
    .andWhere('attempt', '<', attempt)) as Array<{
    attempt: number;
    pgid: number;
    start_ticks: string | null;
    host: string;
    worker_pid: number;
  }>;
  return rows.map((row) => ({
    attempt: Number(row.attempt),
    pgid: Number(row.pgid),
    startTicks: row.start_ticks,
    host: row.host,
    workerPid: Number(row.worker_pid),
  }));
}

export async function forgetEarlierAttemptGroups(
  knex: Knex,
  activityKey: string,
  attempt: number,
): Promise<void> {
  await knex(TABLE).where('activity_key', activityKey).andWhere('attempt', '<', attempt).delete();
}

/** Every group recorded on `host`, with its key, for the sweep a starting worker does. */
export async function groupsOnHost(
  knex: Knex,
  host: string,
): Promise<Array<RecordedProcessGroup & { activityKey: string }>> {
  const rows = (await knex(TABLE)
    .select('activity_key', 'attempt', 'pgid', 'start_ticks', 'host', 'worker_pid')
    .where('host', host)) as Array<{
    activity_key: string;
    attempt: number;
    pgid: number;
    start_ticks: string | null;
    host: string;
    worker_pid: number;
  }>;
  return rows.map((row) => ({
    activityKey: row.activity_key,
    attempt: Number(row.attempt),
    pgid: Number(row.pgid),
    startTicks: row.start_ticks,
    host: row.host,
    workerPid: Number(row.worker_pid),
  }));
}
