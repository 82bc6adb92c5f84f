import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  isCancellation,
  continueAsNew,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { limitWaitMs, MAX_LIMIT_WAITS } from '../../domain/assistants/usage-limit.js';
import { assistantQueueFor } from '../../domain/task-queues.js';
import {
  DEFAULT_CONVERSATION_IDLE_MS,
  DEFAULT_TURN_HEARTBEAT_TIMEOUT_MS,
  DEFAULT_TURNS_PER_RUN,
  TURN_ATTEMPTS,
  type ConversationWorkflowInput,
  type TurnResult,
} from '../../domain/conversations/conversation-workflow.js';
import type { ConversationActivities, TurnActivities } from '../../activities/conversations/activities.js';
import { cancelTurnSignal, messageSignal } from './conversation-messages.js';

/**
 * A conversation's turns, one at a time in arrival order. Signals only wake the workflow: the
 * database says which turns are owed, so a message whose signal never arrived (Temporal was
 * down at that moment) is still answered. Each turn is an activity on the assistant queue,
 * whose worker limit is the concurrency limit; the rest wait there.
 */
export async function conversation(input: ConversationWorkflowInput): Promise<void> {
  const { conversationId } = input;
  const idleTimeoutMs = input.idleTimeoutMs ?? DEFAULT_CONVERSATION_IDLE_MS;
  const turnsPerRun = input.turnsPerRun ?? DEFAULT_TURNS_PER_RUN;
  const pending = new Set<number>(input.pending ?? []);
  const finished = new Set<number>();
  let needsTitle = input.needsTitle ?? true;

  setHandler(messageSignal, ({ messageId }) => {
    if (!finished.has(messageId)) pending.add(messageId);
  });
  // The turn running now, which a cancel signal for its message stops.
  let running: { messageId: number; scope: CancellationScope } | undefined;
  // Cancels asked for, kept: one that lands as a try ends with a usage limit still ends the wait.
  const cancelAsked = new Set<number>();
  setHandler(cancelTurnSignal, ({ messageId }) => {
    cancelAsked.add(messageId);
    if (running?.messageId === messageId) running.scope.cancel();
  });

  const core = proxyActivities<ConversationActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const assistant = proxyActivities<TurnActivities>({
    taskQueue: assistantQueueFor(workflowInfo().taskQueue),
    startToCloseTimeout: '12 hours',
    // A worker that died mid-turn is noticed by its missing heartbeats; the turn then runs again.
    heartbeatTimeout: input.turnHeartbeatTimeoutMs ?? DEFAULT_TURN_HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: TURN_ATTEMPTS },
    // A cancelled turn ends itself (stops the assistant, records the end) before the next starts.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

  /** Runs `work` as the turn of `messageId` that a cancel signal for it stops. */
  const cancellable = async <T>(messageId: number, work: () => Promise<T>): Promise<T> => {
    const scope = new CancellationScope();
    running = { messageId, scope };
    try {
      return await scope.run(work);
    } finally {
      running = undefined;
    }
  };

  /**
   * Runs a turn; when every attempt failed (a bug, a database that stays down) the turn is marked
   * failed. A turn that hits the assistant's usage limit waits on a durable timer until it resets
   * (the turn stays running, its stream says until when), then is tried again; a cancel ends the wait.
   */
  const answer = async (messageId: number) => {
    for (let round = 0; ; round += 1) {
      let result: TurnResult;
      try {
        result = await cancellable(messageId, () =>
          assistant.runAssistantTurn({
            conversationId,
            messageId,
            ...(round > 0 && { round }),
            mayWait: round < MAX_LIMIT_WAITS,
          }),
        );
      } catch (error) {
        // Cancelled on request: the activity recorded the turn's end itself, unless it had
        // already ended with a usage limit (the turn still running): then it ends here.
        if (isCancellation(error)) {
          await core.cancelWaitingTurn({ conversationId, messageId });
          return;
        }
        if (!(error instanceof ActivityFailure)) throw error;
        await core.abandonTurn({ conversationId, messageId, reason: error.cause?.message ?? error.message });
        return;
      }
      if (result.outcome !== 'usage_limited') return;
      try {
        if (cancelAsked.has(messageId)) throw new CancelledFailure('the turn was cancelled');
        await cancellable(messageId, () => sleep(limitWaitMs(result.resetAt, Date.now())));
      } catch (error) {
        if (!isCancellation(error)) throw error;
        await core.cancelWaitingTurn({ conversationId, messageId });
        return;
      }
    }
  };

  const titles = proxyActivities<ConversationActivities>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
  });
  /** A title is a nicety: failing to make one never stops the conversation. */
  const nameConversation = async (messageId: number) => {
    try {
      await titles.generateConversationTitle({ conversationId, messageId });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
    }
  };

  let turnsRun = 0;
  for (;;) {
    const state = await core.conversationState(conversationId);
    for (const id of state.openTurnIds) if (!finished.has(id)) pending.add(id);
    needsTitle = needsTitle && state.needsTitle;

    if (pending.size === 0) {
      const woken = await condition(() => pending.size > 0, idleTimeoutMs);
      // One last look before ending: a message whose signal was lost must not wait for a sweep.
      if (!woken && (await core.conversationState(conversationId)).openTurnIds.length === 0) return;
      continue;
    }

    while (pending.size > 0) {
      const messageId = Math.min(...pending);
      pending.delete(messageId);
      const turn = answer(messageId);
      if (needsTitle) {
        needsTitle = false;
        await Promise.all([turn, nameConversation(messageId)]);
      } else {
        await turn;
      }
      finished.add(messageId);
      turnsRun += 1;
      if (turnsRun >= turnsPerRun || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof conversation>({
          ...input,
          pending: [...pending],
          needsTitle,
        });
      }
    }
  }
}
