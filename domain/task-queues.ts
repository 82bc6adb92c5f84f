/**
 * Task queues come in families: the core queue runs workflows and their activities (bash nodes
 * included: on the workflow's own queue the server can dispatch them eagerly), the assistant
 * queue runs assistant sessions under the concurrency limit. Tests use a fresh family per test;
 * production uses the default one.
 */
export const DEFAULT_TASK_QUEUE = 'cairn-core';

const ASSISTANT_SUFFIX = '-assistant';

export function assistantQueueFor(coreQueue: string): string {
  return `${coreQueue}${ASSISTANT_SUFFIX}`;
}
