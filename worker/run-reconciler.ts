import { reconcileRuns, type ReconcileOptions } from '../services/runs/reconcile-runs.js';
import { runPeriodically } from './periodic.js';

export interface RunReconcilerOptions extends ReconcileOptions {
  intervalMs?: number;
}

/** Reconciles at start and then periodically until stopped. */
export function startRunReconciler(options: RunReconcilerOptions): { stop(): Promise<void> } {
  return runPeriodically(() => reconcileRuns(options), {
    intervalMs: options.intervalMs ?? 60_000,
    logger: options.logger,
    failureEvent: 'run.reconcile_failed',
  });
}
