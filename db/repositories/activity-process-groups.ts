import type { Knex } from 'knex';
import { toIso } from '../rows.js';

export interface RecordedProcessGroup {
  attempt: number;
  pgid: number;
  startTicks: string | null;
  host: string;
  workerPid: number;
  startedAt: string;
}

const TABLE = 'activity_process_groups';
const COLUMNS = ['activity_key', 'attempt', 'pgid', 'start_ticks', 'host', 'worker_pid', 'started_at'];

interface Row {
  activity_key: string;
  attempt: number;
  pgid: number;
  start_ticks: string | null;
  host: string;
  worker_pid: number;
  started_at: unknown;
}

function fromRow(row: Row): RecordedProcessGroup & { activityKey: string } {
  return {
    activityKey: row.activity_key,
    attempt: Number(row.attempt),
    pgid: Number(row.pgid),
    startTicks: row.start_ticks,
    host: row.host,
    workerPid: Number(row.worker_pid),
    startedAt: toIso(row.started_at),
  };
}

export async function recordProcessGroup(
  knex: Knex,
  group: RecordedProcessGroup & { activityKey: string },
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
): Promise<Array<RecordedProcessGroup & { activityKey: string }>> {
  const rows = (await knex(TABLE)
    .select(COLUMNS)
    .where('activity_key', activityKey)
    .andWhere('attempt', '<', attempt)) as Row[];
  return rows.map(fromRow);
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
  const rows = (await knex(TABLE).select(COLUMNS).where('host', host)) as Row[];
  return rows.map(fromRow);
}
