/**
 * Task queues come in families: the core queue runs conversations, registrations, cleanup and
 * their activities; the run queue runs workflow runs with their bash nodes and preparation (on
 * the run's own queue, so the server can hand them straight back to the worker, and with slots
 * of their own, so long scripts never hold up conversations); the assistant queue runs
 * assistant sessions under the concurrency limit. Tests use a fresh family per test; production
 * uses the default one.
 */
export const DEFAULT_TASK_QUEUE = 'cairn-core';

const ASSISTANT_SUFFIX = '-assistant';
const RUN_SUFFIX = '-runs';

export function assistantQueueFor(coreQueue: string): string {
  return `${coreQueue}${ASSISTANT_SUFFIX}`;
}

export function runQueueFor(coreQueue: string): string {
  return `${coreQueue}${RUN_SUFFIX}`;
}

/** The core queue of a family, from any of its queues a workflow may run on (core or run queue). */
export function coreQueueOf(queue: string): string {
  return queue.endsWith(RUN_SUFFIX) ? queue.slice(0, -RUN_SUFFIX.length) : queue;
}
