import { ActivityFailure, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { coreQueueOf, deliveryQueueFor } from '../../domain/task-queues.js';
import type { ChatReplyInput } from '../../domain/chat/chat-reply.js';
import type { ChatActivities } from '../../activities/chat/chat-activities.js';
import type { CodeHostActivities } from '../../activities/codehost/code-host-activities.js';

// Platforms refuse for good (a chat the bot left, a blocked bot) with errors the activities mark
// non-retryable; everything else (an outage, a rate limit past its wait) is retried for a while.
const RETRY = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 20,
} as const;

const send = proxyActivities<ChatActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: RETRY,
});

const FOLLOW = {
  // A turn or a run (waiting at a gate) can last for hours; a dead worker is noticed by its missing heartbeats and the delivery
  // goes on elsewhere from what it recorded.
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '30 seconds',
  retry: RETRY,
} as const;

/**
 * The activities that follow a turn or a run until it ends, on the delivery queue, whose slots are
 * its own (domain/task-queues.ts). Replay does not compare an activity's queue, and the core worker
 * still serves these activities, so one scheduled on the core queue before an upgrade completes there.
 */
function followers() {
  const taskQueue = deliveryQueueFor(coreQueueOf(workflowInfo().taskQueue));
  return proxyActivities<ChatActivities>({ ...FOLLOW, taskQueue });
}

// A push and a pull request after a run: git and the platform's API, retried like the rest.
const publish = proxyActivities<CodeHostActivities>({
  startToCloseTimeout: '15 minutes',
  retry: RETRY,
});

// A run's check run (commit status) is started with a few quick tries (about half a minute), so an
// outage of the platform's API never holds up the run's progress in the thread; it is completed
// with the retries of the rest, as the run has ended by then.
const checks = proxyActivities<CodeHostActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { ...RETRY, maximumAttempts: 5 },
});

/**
 * A check run (commit status) is a courtesy: when the platform keeps refusing it, the run's answer
 * in the thread goes on.
 */
async function optional<T>(step: Promise<T>): Promise<T | undefined> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof ActivityFailure) return undefined;
    throw error;
  }
}

/**
 * One answer in a chat. A turn's answer is a placeholder posted once and then only edited (its id
 * is the activity's result, kept in history), so a restart never posts the answer twice; a crash
 * between posting and recording can leave one extra placeholder.
 */
export async function chatReplyWorkflow(input: ChatReplyInput): Promise<void> {
  if (input.kind === 'text') {
    await send.sendChatText(input);
    return;
  }
  if (input.kind === 'run') {
    await send.sendChatText({
      kind: 'text',
      address: input.address,
      markdown: input.markdown,
      replyTo: input.replyTo,
    });
    const codeHost = input.address.platform === 'github' || input.address.platform === 'gitlab';
    // In a pull request the run shows on its head while it goes and at its end: a check run on
    // GitHub, a commit status on GitLab (each platform behind its own patch, for runs in flight).
    const showsOnHead =
      (input.address.platform === 'github' && patched('code-host-check-run')) ||
      (input.address.platform === 'gitlab' && patched('code-host-commit-status'));
    const checkRunId = showsOnHead
      ? await optional(checks.startRunCheck({ address: input.address, runId: input.runId }))
      : undefined;
    await followers().followRunInChat({ address: input.address, runId: input.runId });
    if (checkRunId)
      await optional(publish.completeRunCheck({ address: input.address, runId: input.runId, checkRunId }));
    // On a code host, a run that changed code proposes its changes there.
    if (codeHost && patched('code-host-publish-run'))
      await publish.publishRunChanges({ address: input.address, runId: input.runId });
    return;
  }
  const placeholderId = await send.postTurnPlaceholder(input);
  await followers().deliverTurnReply({ ...input, placeholderId });
}
