/**
 * Task queues come in families: the core queue runs conversations, registrations, cleanup and
 * their activities; the run queue runs workflow runs with their bash nodes and preparation (on
 * the run's own queue, so the server can hand them straight back to the worker, and with slots
 * of their own, so long scripts never hold up conversations); the assistant queue runs
 * assistant sessions under the concurrency limit; the delivery queue runs the activities that
 * follow a turn or a run into a chat or a code-host thread until it ends (hours, or days at a
 * gate), with slots of their own, so that waiting deliveries never hold the core queue's slots that
 * every new message, request and approval needs. Tests use a fresh family per test; production
 * uses the default one.
 */
export const DEFAULT_TASK_QUEUE = 'cairn-core';

const ASSISTANT_SUFFIX = '-assistant';
const RUN_SUFFIX = '-runs';
const DELIVERY_SUFFIX = '-deliveries';

export function assistantQueueFor(coreQueue: string): string {
  return `${coreQueue}${ASSISTANT_SUFFIX}`;
}

export function runQueueFor(coreQueue: string): string {
  return `${coreQueue}${RUN_SUFFIX}`;
}

export function deliveryQueueFor(coreQueue: string): string {
  return `${coreQueue}${DELIVERY_SUFFIX}`;
}

/** The core queue of a family, from any of its queues a workflow may run on (core or run queue). */
export function coreQueueOf(queue: string): string {
  return queue.endsWith(RUN_SUFFIX) ? queue.slice(0, -RUN_SUFFIX.length) : queue;
}
