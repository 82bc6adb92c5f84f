// What the run pages read from a run's stored definition (each node's time limits, the graph),
// worked out once per run: a run's definition is written when the run is made and never changed
// (db/repositories/workflow-runs.ts), and validating it on every read of a run or the dashboard
// was the largest part of those reads' CPU (bench/README.md, reads).
import { RecentCache } from '../../config/recent-cache.js';
import { findRun } from '../../db/repositories/workflow-runs.js';
import { runDefinitionFacts, type RunDefinitionFacts } from '../../domain/runs/run-definition-facts.js';
import type { ServiceContext } from '../context.js';

/** Runs whose facts are kept per database: far more than a dashboard shows or a team watches. */
const RUNS_KEPT = 2_000;

/** All these need of a service context: its database, whose runs the cache belongs to. */
export type FactsContext = Pick<ServiceContext, 'db'>;

const cachesByDatabase = new WeakMap<object, RecentCache<string, RunDefinitionFacts>>();

function factsCache(context: FactsContext): RecentCache<string, RunDefinitionFacts> {
  let cache = cachesByDatabase.get(context.db);
  if (!cache) {
    cache = new RecentCache(RUNS_KEPT);
    cachesByDatabase.set(context.db, cache);
  }
  return cache;
}

/** The facts of a run's definition given at hand (a row already read). */
export function definitionFactsOf(
  context: FactsContext,
  runId: string,
  definition: unknown,
): RunDefinitionFacts {
  const cache = factsCache(context);
  const known = cache.get(runId);
  if (known) return known;
  const facts = runDefinitionFacts(definition);
  cache.set(runId, facts);
  return facts;
}

/** The facts of a run's definition, read from the database the first time only; none for no run. */
export async function definitionFactsOfRun(
  context: FactsContext,
  runId: string,
): Promise<RunDefinitionFacts> {
  const known = factsCache(context).get(runId);
  if (known) return known;
  const run = await findRun(context.db.reader, runId);
  return run ? definitionFactsOf(context, runId, run.definition) : runDefinitionFacts(undefined);
}
