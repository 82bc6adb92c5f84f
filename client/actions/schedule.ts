import type { Schedule } from '../api-types.js';
import { EXIT } from '../exit-codes.js';
import type { ClientSession } from '../session.js';
import { table } from '../terminal.js';

/** When it fires next, or why it does not. */
function nextOf(schedule: Schedule): string {
  if (schedule.paused) return `paused${schedule.note ? ` (${schedule.note})` : ''}`;
  return schedule.nextRunsAt[0] ?? 'never';
}

export async function listSchedules(session: ClientSession): Promise<number> {
  const { items } = await session.api.get<{ items: Schedule[] }>('/api/schedules');
  if (session.json) {
    for (const schedule of items) session.term.out(JSON.stringify(schedule));
    return EXIT.ok;
  }
  if (items.length === 0) {
    session.term.out('no schedules: a workflow declares one with `schedule:` (docs/workflow-format.md)');
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'CODEBASE', 'WORKFLOW', 'CRON', 'NEXT'],
    ...items.map((one) => [
      one.id,
      one.codebaseName,
      one.workflowName,
      one.timezone ? `${one.cron} ${one.timezone}` : one.cron,
      nextOf(one),
    ]),
  ];
  for (const line of table(rows)) session.term.out(line);
  return EXIT.ok;
}

/** pause, unpause or trigger; answers the schedule as it is after. */
export async function operateSchedule(
  session: ClientSession,
  operation: 'pause' | 'unpause' | 'trigger',
  id: string,
  options: { note?: string } = {},
): Promise<number> {
  const body = operation === 'trigger' || options.note === undefined ? undefined : { note: options.note };
  const schedule = await session.api.post<Schedule>(
    `/api/schedules/${encodeURIComponent(id)}/${operation}`,
    body,
  );
  if (session.json) session.term.out(JSON.stringify(schedule));
  else if (operation === 'trigger')
    session.term.out(
      `fired ${schedule.workflowName} on ${schedule.codebaseName}: \`cairn run list --workflow ${schedule.workflowName}\` shows its run`,
    );
  else session.term.out(`${schedule.id} ${schedule.paused ? 'paused' : `runs next at ${nextOf(schedule)}`}`);
  return EXIT.ok;
}
