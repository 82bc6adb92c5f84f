import { expect } from 'chai';
import { hostname } from 'node:os';
import { spawn } from 'node:child_process';
import {
  killLeftoverGroup,
  LEADERLESS_TRUST_MS,
  processStartTicks,
} from '../../../infra/processes/leftover-groups.js';
import {
  observeProcessGroups,
  signalGroup,
  spawnProcessGroup,
} from '../../../infra/processes/process-groups.js';
import { recordProcessGroup } from '../../../db/repositories/activity-process-groups.js';
import {
  attemptRecorder,
  stopEarlierAttempts,
  sweepDeadWorkers,
} from '../../../services/processes/attempt-process-groups.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { captureLogs } from '../../support/logs.js';

const groupAlive = (pgid: number) => signalGroup(pgid, 0);

/** Polls a condition, sync or async, for up to five seconds. */
async function until(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A group whose leader starts a helper in the background and waits: a bash node's shape. */
function startGroup(): number {
  const child = spawnProcessGroup('bash', ['-c', 'sleep 60 & wait'], { env: process.env, stdio: 'ignore' });
  return child.pid!;
}

describe('process groups left by an earlier attempt', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pgid of started.splice(0)) signalGroup(pgid, 'SIGKILL');
  });

  it('kills a group whose leader still runs with the recorded start time', async () => {
    const pgid = startGroup();
    started.push(pgid);
    const ticks = processStartTicks(pgid);
    expect(ticks).to.match(/^\d+$/);
    expect(killLeftoverGroup(pgid, ticks)).to.equal('killed');
    await until(() => !groupAlive(pgid), 'the group to change');
  });

  it('leaves a stranger alone: a leader with another start time got the id after ours ended', () => {
    const pgid = startGroup();
    started.push(pgid);
    expect(killLeftoverGroup(pgid, '1')).to.equal('reused');
    expect(groupAlive(pgid)).to.equal(true);
  });

  it('kills the members a dead leader left behind, and says when nothing is left', async () => {
    // The leader exits at once; its background sleep stays in the group.
    const leader = spawn('bash', ['-c', 'sleep 60 & exit 0'], { detached: true, stdio: 'ignore' });
    const pgid = leader.pid!;
    started.push(pgid);
    await new Promise((resolve) => leader.once('exit', resolve));
    await until(() => processStartTicks(pgid) === undefined, 'the group to change');
    expect(groupAlive(pgid)).to.equal(true);
    // Recorded long ago, a leaderless group is no longer taken for ours.
    expect(killLeftoverGroup(pgid, '12345', { ms: 0, now: LEADERLESS_TRUST_MS + 1 })).to.equal('gone');
    expect(groupAlive(pgid)).to.equal(true);
    const recent = { ms: Date.now(), now: Date.now() };
    expect(killLeftoverGroup(pgid, '12345', recent)).to.equal('killed');
    await until(() => !groupAlive(pgid), 'the members to end');
    expect(killLeftoverGroup(pgid, '12345', recent)).to.equal('gone');
  });
});

for (const kind of databaseKinds()) {
  describe(`attempts and their process groups (${kind.name})`, () => {
    let test: TestDatabase;
    const logs = captureLogs('debug');
    const started: number[] = [];
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(async () => {
      for (const pgid of started.splice(0)) signalGroup(pgid, 'SIGKILL');
      await test.dispose();
    });
    const deps = () => ({ knex: test.db.knex, logger: logs.logger });
    const rows = () =>
      test.db.knex('activity_process_groups').select('activity_key', 'attempt', 'pgid', 'host');

    it('records each group an attempt starts while it runs, and forgets it when it ends', async () => {
      const attempt = { activityKey: 'wf/run/1', attempt: 1 };
      const recorder = attemptRecorder(deps(), attempt);
      const child = observeProcessGroups(recorder, () =>
        spawnProcessGroup('bash', ['-c', 'read line'], { env: process.env }),
      );
      started.push(child.pid!);
      await until(async () => (await rows()).length === 1, 'the group to change');
      expect(await rows()).to.deep.equal([
        { activity_key: 'wf/run/1', attempt: 1, pgid: child.pid, host: hostname() },
      ]);
      child.stdin!.end('done\n');
      await new Promise((resolve) => child.once('exit', resolve));
      await recorder.settled();
      expect(await rows()).to.deep.equal([]);
    });

    it('kills what earlier attempts of the same activity left running before the next attempt starts', async () => {
      const first = { activityKey: 'wf/run/7', attempt: 1 };
      // Attempt 1 started a group and its worker died: nothing forgot the record.
      const orphan = observeProcessGroups(attemptRecorder(deps(), first), () => startGroup());
      started.push(orphan);
      await until(async () => (await rows()).length === 1, 'the group to change');
      // Another activity's group must survive.
      const other = observeProcessGroups(
        attemptRecorder(deps(), { activityKey: 'wf/run/8', attempt: 1 }),
        () => startGroup(),
      );
      started.push(other);
      await until(async () => (await rows()).length === 2, 'the group to change');

      await stopEarlierAttempts(deps(), { activityKey: 'wf/run/7', attempt: 2 });
      await until(() => !groupAlive(orphan), 'the group to change');
      expect(groupAlive(other)).to.equal(true);
      expect((await rows()).map((row: { activity_key: string }) => row.activity_key)).to.deep.equal([
        'wf/run/8',
      ]);
      expect(logs.lines.some((line) => line.event === 'activity.leftover_group_killed')).to.equal(true);
    });

    it('does not reach for a group recorded on another host, and says so', async () => {
      const pgid = startGroup();
      started.push(pgid);
      await recordProcessGroup(test.db.knex, {
        activityKey: 'wf/run/9',
        attempt: 1,
        pgid,
        startTicks: processStartTicks(pgid) ?? null,
        host: 'another-host',
        workerPid: 1,
        startedAt: new Date().toISOString(),
      });
      await stopEarlierAttempts(deps(), { activityKey: 'wf/run/9', attempt: 2 });
      expect(groupAlive(pgid)).to.equal(true);
      expect(logs.lines.some((line) => line.event === 'activity.leftover_group_elsewhere')).to.equal(true);
    });

    it("at a worker's start, kills the groups of this host's dead workers and keeps the living ones'", async () => {
      const dead = spawn(process.execPath, ['-e', '0']);
      await new Promise((resolve) => dead.once('exit', resolve));
      const orphan = startGroup();
      const kept = startGroup();
      started.push(orphan, kept);
      const record = (pgid: number, workerPid: number) =>
        recordProcessGroup(test.db.knex, {
          activityKey: `wf/run/${pgid}`,
          attempt: 1,
          pgid,
          startTicks: processStartTicks(pgid) ?? null,
          host: hostname(),
          workerPid,
          startedAt: new Date().toISOString(),
        });
      await record(orphan, dead.pid!);
      await record(kept, process.pid);
      expect(await sweepDeadWorkers(deps())).to.equal(1);
      await until(() => !groupAlive(orphan), 'the group to change');
      expect(groupAlive(kept)).to.equal(true);
      expect((await rows()).map((row: { pgid: number }) => row.pgid)).to.deep.equal([kept]);
    });
  });
}
