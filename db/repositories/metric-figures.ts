import { countOf } from '../rows.js';
import { toReader, type ReadSource } from '../sql-reader.js';

/** What /metrics reports from the database, read at each scrape. */
export interface MetricFigures {
  turnsActive: number;
  turnsQueued: number;
  /** Runs per status and workflow (a runs-per-workflow series set). */
  runs: Array<{ status: string; workflow: string; count: number }>;
  /** Rows in the event journal. */
  journalEvents: number;
}

const TURNS_AND_EVENTS_SQL =
  "select (select count(*) from messages where turn_status = 'running') as active," +
  " (select count(*) from messages where turn_status = 'queued') as queued," +
  ' (select count(*) from events) as events';

// Kept by the triggers of migration 0016: a scrape reads a few rows, not every run.
const RUNS_SQL =
  'select status, workflow_name as workflow, count from run_workflow_counts where count > 0 order by workflow_name, status';

export async function readMetricFigures(source: ReadSource): Promise<MetricFigures> {
  const reader = toReader(source);
  const [totals, runs] = await Promise.all([
    reader.first<{ active: unknown; queued: unknown; events: unknown }>(TURNS_AND_EVENTS_SQL),
    reader.all<{ status: string; workflow: string; count: unknown }>(RUNS_SQL),
  ]);
  return {
    turnsActive: countOf({ count: totals?.active }),
    turnsQueued: countOf({ count: totals?.queued }),
    runs: runs.map((row) => ({ status: row.status, workflow: row.workflow, count: countOf(row) })),
    journalEvents: countOf({ count: totals?.events }),
  };
}
