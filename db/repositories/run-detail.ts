import { jsonArraySql, jsonObjectSql, oncePerDialect, type JsonProjection } from '../json-projection.js';
import { toReader, type ReadSource } from '../sql-reader.js';

/** What the run detail shows, written by the database as JSON: each list a JSON array. */
export interface RunDetailJson {
  run: string;
  events: string;
  children: string;
}

/** How the database writes each part: the run, each of its events, each run it started. */
export interface RunDetailProjections {
  run: JsonProjection;
  event: JsonProjection;
  child: JsonProjection;
}

// The projections are constants of the code: the statement is written once per dialect.
const detailSql = oncePerDialect(
  (projections: RunDetailProjections, dialect) =>
    `select ${jsonObjectSql(dialect, projections.run)} as run,` +
    ` (select ${jsonArraySql(jsonObjectSql(dialect, projections.event), 'id')}` +
    ' from events where events.run_id = workflow_runs.id) as events,' +
    ` (select ${jsonArraySql(jsonObjectSql(dialect, projections.child), 'created_at, id')}` +
    ' from workflow_runs child where child.parent_run_id = workflow_runs.id) as children' +
    ' from workflow_runs where id = ?',
);

/**
 * A run, its events (oldest first) and the runs its sub-workflow nodes started (oldest first), in
 * one statement: on Postgres each statement is a round trip, and the three reads of the run page
 * in parallel cost three of them. Undefined when there is no such run.
 */
export async function findRunDetailAsJson(
  source: ReadSource,
  id: string,
  projections: RunDetailProjections,
): Promise<RunDetailJson | undefined> {
  const reader = toReader(source);
  return reader.first<RunDetailJson>(detailSql(projections, reader.dialect), [id]);
}
