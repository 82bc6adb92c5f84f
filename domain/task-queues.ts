/**
 * Task queues come in families: the core queue runs workflows and short activities, the
 * assistant queue runs assistant sessions under the concurrency limit, the node queue runs the
 * slower steps of workflow runs, bash nodes and worktree preparation (a worker of their own:
 * dispatch on the busy core queue cost them tens of milliseconds each). Tests use a fresh family per test; production uses the default one.
 */
export const DEFAULT_TASK_QUEUE = 'cairn-core';

const ASSISTANT_SUFFIX = '-assistant';

export function assistantQueueFor(coreQueue: string): string {
  return `${coreQueue}${ASSISTANT_SUFFIX}`;
}

const NODE_SUFFIX = '-nodes';

export function nodeQueueFor(coreQueue: string): string {
  return `${coreQueue}${NODE_SUFFIX}`;
}
