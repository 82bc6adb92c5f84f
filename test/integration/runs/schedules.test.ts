import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseKinds } from '../../support/databases.js';
import { startWorkflowRunHarness, type Run, type WorkflowRunHarness } from '../../support/workflow-runs.js';

// Issue 18's schedules: Temporal Schedules kept in line with the workflow files, fired by a
// trigger, paused and unpaused through the API, with real Temporal, git and SQLite or Postgres.

const nightly = (schedule: string) => `name: nightly
schedule:
${schedule}
nodes:
  - id: check
    bash: |
      echo "checked: $ARGUMENTS"
`;

const BERLIN_NIGHTS = `  cron: "0 3 * * *"
  message: nightly check
  timezone: Europe/Berlin
  catchup_window: 10m`;

interface Schedule {
  id: string;
  codebaseId: string;
  workflowName: string;
  source: string;
  cron: string;
  timezone: string | null;
  message: string;
  overlap: string;
  catchupWindowMs: number;
  paused: boolean;
  note: string | null;
  nextRunsAt: string[];
  lastFiredAt: string | null;
}

type ScheduledRun = Run & { scheduleId: string | null; workflowName: string; message: string };

/** The hour and weekday of a time in a time zone. */
function wallClock(iso: string, timeZone: string): { hour: number; weekday: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: 'numeric',
    hourCycle: 'h23',
    weekday: 'short',
  }).formatToParts(new Date(iso));
  return {
    hour: Number(parts.find((part) => part.type === 'hour')!.value),
    weekday: parts.find((part) => part.type === 'weekday')!.value,
  };
}

for (const kind of databaseKinds()) {
  describe(`workflow language: schedules (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    const schedules = async () =>
      (await harness.call<{ items: Schedule[] }>('GET', '/api/schedules')).body.items.filter(
        (item) => item.workflowName === 'nightly',
      );
    const writeNightly = (text: string) =>
      writeFileSync(join(harness.repo.path, '.cairn', 'workflows', 'nightly.yaml'), text);

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/nightly.yaml': nightly(BERLIN_NIGHTS),
      });
      // Schedules belong to registered codebases: this registers the repository.
      await harness.conversation();
    });

    after(() => harness.close());

    it("lists a workflow's schedule with its settings and its next times, in its time zone", async () => {
      const [schedule] = await schedules();
      expect(schedule).to.deep.include({
        workflowName: 'nightly',
        source: 'project',
        cron: '0 3 * * *',
        timezone: 'Europe/Berlin',
        message: 'nightly check',
        overlap: 'skip',
        catchupWindowMs: 600_000,
        paused: false,
        lastFiredAt: null,
      });
      expect(schedule!.id).to.equal(`cairn-wf-${schedule!.codebaseId}-nightly`);
      expect(schedule!.nextRunsAt).to.have.length(3);
      for (const time of schedule!.nextRunsAt) expect(wallClock(time, 'Europe/Berlin').hour).to.equal(3);
    });

    it('fires on a trigger: the run reads the file as it is, says which schedule started it, and completes', async () => {
      const [schedule] = await schedules();
      writeNightly(nightly(BERLIN_NIGHTS.replace('nightly check', 'the message as the file says now')));
      const fired = await harness.call<Schedule>('POST', `/api/schedules/${schedule!.id}/trigger`);
      expect(fired.status, JSON.stringify(fired.body)).to.equal(202);
      let run: ScheduledRun | undefined;
      for (const deadline = Date.now() + 60_000; !run || run.status !== 'completed'; await sleep(200)) {
        if (Date.now() > deadline)
          throw new Error(`the scheduled run did not complete: ${JSON.stringify(run)}`);
        const listed = await harness.call<{ items: ScheduledRun[] }>(
          'GET',
          '/api/workflows/runs?workflowName=nightly',
        );
        run = listed.body.items.find((item) => item.scheduleId === schedule!.id);
      }
      expect(run.message).to.equal('the message as the file says now');
      const detail = await harness.call<{
        events: { type: string; nodeId: string | null; payload: { output?: unknown } }[];
      }>('GET', `/api/workflows/runs/${run.runId}`);
      const output = detail.body.events.find((e) => e.type === 'node_completed' && e.nodeId === 'check')!
        .payload.output;
      expect(output).to.equal('checked: the message as the file says now');
      const conversation = await harness.call<{ platform: string }>(
        'GET',
        `/api/conversations/${run.conversationId}`,
      );
      expect(conversation.body.platform).to.equal('schedule');
      const [after] = await schedules();
      expect(after!.lastFiredAt).to.be.a('string');
    });

    it('pauses and unpauses with a note', async () => {
      const [schedule] = await schedules();
      const paused = await harness.call<Schedule>('POST', `/api/schedules/${schedule!.id}/pause`, {
        note: 'holidays',
      });
      expect(paused.status).to.equal(200);
      expect(paused.body).to.include({ paused: true, note: 'holidays' });
      expect((await schedules())[0]!.paused).to.equal(true);
      const unpaused = await harness.call<Schedule>('POST', `/api/schedules/${schedule!.id}/unpause`);
      expect(unpaused.body).to.include({ paused: false });
    });

    it('follows the file: a new cron changes the schedule, a removed schedule is deleted', async () => {
      writeNightly(nightly('  cron: "30 4 * * 1"\n  overlap: buffer_one'));
      const [changed] = await schedules();
      expect(changed).to.deep.include({
        cron: '30 4 * * 1',
        timezone: null,
        overlap: 'buffer_one',
        message: '',
      });
      for (const time of changed!.nextRunsAt)
        expect(wallClock(time, 'UTC')).to.deep.equal({ hour: 4, weekday: 'Mon' });
      writeNightly('name: nightly\nnodes:\n  - id: check\n    bash: echo plain\n');
      expect(await schedules()).to.deep.equal([]);
      const gone = await harness.call<{ code: string }>('POST', `/api/schedules/${changed!.id}/pause`);
      expect(gone.status).to.equal(404);
      expect(gone.body.code).to.equal('schedule_not_found');
    });

    it('lists the bundled nightly-review paused for the codebase; triggered, it reviews each file changed today', async () => {
      const listed = await harness.call<{ items: Schedule[] }>('GET', '/api/schedules');
      const bundled = listed.body.items.find((item) => item.workflowName === 'nightly-review')!;
      expect(bundled).to.deep.include({ source: 'bundled', paused: true, cron: '0 3 * * *' });
      expect(bundled.note).to.match(/unpause/);
      const fired = await harness.call('POST', `/api/schedules/${bundled.id}/trigger`);
      expect(fired.status).to.equal(202);
      let run: ScheduledRun | undefined;
      for (
        const deadline = Date.now() + 90_000;
        !run || !['completed', 'failed'].includes(run.status);
        await sleep(200)
      ) {
        if (Date.now() > deadline) throw new Error(`the nightly review did not end: ${JSON.stringify(run)}`);
        const runs = await harness.call<{ items: ScheduledRun[] }>(
          'GET',
          '/api/workflows/runs?workflowName=nightly-review',
        );
        run = runs.body.items.find((item) => item.scheduleId === bundled.id);
      }
      expect(run.status, JSON.stringify(run)).to.equal('completed');
      const detail = await harness.call<{
        events: { type: string; nodeId: string | null; payload: Record<string, unknown> }[];
      }>('GET', `/api/workflows/runs/${run.runId}`);
      const completed = Object.fromEntries(
        detail.body.events
          .filter((e) => e.type === 'node_completed')
          .map((e) => [e.nodeId, e.payload.output]),
      );
      // The repository's one commit, made today, added these.
      expect(completed.changed).to.have.members(['.cairn/workflows/nightly.yaml', 'README.md']);
      const reviewed = detail.body.events.filter(
        (e) => e.type === 'node_item_completed' && e.nodeId === 'review',
      );
      expect(reviewed.map((e) => e.payload.index)).to.have.members([0, 1]);
      expect(completed.summary).to.be.a('string');
    });

    it('refuses a schedule with a cron, time zone or overlap it cannot use, naming the field', async () => {
      const verdict = await harness.call<{ valid: boolean; errors: string[] }>(
        'POST',
        '/api/workflows/validate',
        {
          definition: {
            name: 'w',
            schedule: { cron: '61 * * * *', timezone: 'Mars/Olympus', overlap: 'sometimes', every: '1h' },
            nodes: [{ id: 'a', bash: 'true' }],
          },
        },
      );
      expect(verdict.body.valid).to.equal(false);
      expect(verdict.body.errors).to.deep.equal([
        'schedule: unknown key "every"',
        'schedule.cron: minute "61" must be *, or values from 0 to 59, ranges a-b, lists a,b and steps /n',
        'schedule.timezone: "Mars/Olympus" is not an IANA time zone, such as "Europe/Berlin" or "UTC"',
        'schedule.overlap: must be one of skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all, not "sometimes"',
      ]);
    });
  });
}
