import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from '../../config/logger.js';
import {
  earlierAttemptGroups,
  forgetEarlierAttemptGroups,
  forgetProcessGroup,
  groupsOnHost,
  recordProcessGroup,
} from '../../db/repositories/activity-process-groups.js';
import { killLeftoverGroup, processStartTicks } from '../../infra/processes/leftover-groups.js';
import type { ProcessGroupObserver } from '../../infra/processes/process-groups.js';

/** One attempt of one activity: the key is the same for all attempts of that activity. */
export interface ActivityAttempt {
  activityKey: string;
  attempt: number;
}

interface Dependencies {
  knex: Knex;
  logger: Logger;
}

/**
 * Kills the process groups that earlier attempts of this activity left running (their worker was
 * killed, or lost the server and was given up on), before this attempt starts anything: two
 * attempts must never run in one worktree at once.
 *
 * One host is assumed: a group recorded on another host cannot be signalled from here; it is
 * logged, and a deployment with workers on several hosts needs a per-host reaper (each host's
 * worker killing its own dead workers' groups at start, as `sweepDeadWorkers` does).
 */
export async function stopEarlierAttempts(deps: Dependencies, attempt: ActivityAttempt): Promise<void> {
  const groups = await earlierAttemptGroups(deps.knex, attempt.activityKey, attempt.attempt);
  const here = hostname();
  for (const group of groups) {
    const where = { activityKey: attempt.activityKey, attempt: group.attempt, pgid: group.pgid };
    if (group.host !== here) {
      deps.logger.warn(
        { event: 'activity.leftover_group_elsewhere', ...where, host: group.host },
        'an earlier attempt ran on another host; its processes cannot be stopped from here',
      );
      continue;
    }
    const outcome = killLeftoverGroup(group.pgid, group.startTicks ?? undefined, recordedAt(group));
    if (outcome === 'killed')
      deps.logger.warn(
        { event: 'activity.leftover_group_killed', ...where },
        'killed what an earlier attempt left running',
      );
  }
  await forgetEarlierAttemptGroups(deps.knex, attempt.activityKey, attempt.attempt);
}

const recordedAt = (group: { startedAt: string }) => ({ ms: Date.parse(group.startedAt), now: Date.now() });

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it lives, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * At a worker's start: kills the groups recorded by workers of this host that are no longer
 * alive, whether or not their activities will ever be retried (a terminated workflow's are not).
 */
export async function sweepDeadWorkers(deps: Dependencies): Promise<number> {
  let killed = 0;
  for (const group of await groupsOnHost(deps.knex, hostname())) {
    if (group.workerPid === process.pid || processAlive(group.workerPid)) continue;
    if (killLeftoverGroup(group.pgid, group.startTicks ?? undefined, recordedAt(group)) === 'killed') {
      killed++;
      deps.logger.warn(
        { event: 'activity.leftover_group_killed', activityKey: group.activityKey, pgid: group.pgid },
        'killed what a dead worker left running',
      );
    }
    await forgetProcessGroup(deps.knex, group.activityKey, group.pgid);
  }
  return killed;
}

export interface AttemptRecorder extends ProcessGroupObserver {
  /** Resolves when every record and removal has reached the database. */
  settled(): Promise<void>;
}

/** Records each group this attempt starts while it runs, and forgets it when its leader exits. */
export function attemptRecorder(deps: Dependencies, attempt: ActivityAttempt): AttemptRecorder {
  const pending = new Map<number, Promise<void>>();
  const host = hostname();
  const logFailure = (error: unknown) =>
    deps.logger.warn(
      { event: 'activity.group_record_failed', err: error },
      'could not record a process group',
    );
  return {
    started(pgid) {
      const recorded = recordProcessGroup(deps.knex, {
        activityKey: attempt.activityKey,
        attempt: attempt.attempt,
        pgid,
        startTicks: processStartTicks(pgid) ?? null,
        host,
        workerPid: process.pid,
        startedAt: new Date().toISOString(),
      }).catch(logFailure);
      pending.set(pgid, recorded);
    },
    ended(pgid) {
      const recorded = pending.get(pgid) ?? Promise.resolve();
      pending.set(
        pgid,
        recorded.then(() => forgetProcessGroup(deps.knex, attempt.activityKey, pgid)).catch(logFailure),
      );
    },
    async settled() {
      await Promise.all(pending.values());
    },
  };
}
