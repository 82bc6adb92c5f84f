import { countOf } from '../rows.js';
import { toReader, type ReadSource } from '../sql-reader.js';

export interface TurnAndRunCounts {
  /** Turns running and waiting (messages by turn status). */
  active: number;
  queued: number;
  /** Workflow runs in status running (kept by the triggers of migration 0004). */
  runningWorkflows: number;
}

// One statement, so /api/health costs one round trip to Postgres rather than two.
const COUNTS_SQL =
  "select (select count(*) from messages where turn_status = 'running') as active," +
  " (select count(*) from messages where turn_status = 'queued') as queued," +
  " (select count from run_status_counts where status = 'running') as running_workflows";

/** The figures /api/health reports, read together. */
export async function countTurnsAndRuns(source: ReadSource): Promise<TurnAndRunCounts> {
  const row = await toReader(source).first<{ active: unknown; queued: unknown; running_workflows: unknown }>(
    COUNTS_SQL,
  );
  return {
    active: countOf({ count: row?.active }),
    queued: countOf({ count: row?.queued }),
    runningWorkflows: countOf({ count: row?.running_workflows }),
  };
}
