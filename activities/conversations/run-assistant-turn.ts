import { CancelledFailure, Context } from '@temporalio/activity';
import { findConversation, type Conversation } from '../../db/repositories/conversations.js';
import { findMessage, type Message } from '../../db/repositories/messages.js';
import {
  TURN_ATTEMPTS,
  type TurnInput,
  type TurnResult,
} from '../../domain/conversations/conversation-workflow.js';
import { usageLimitReset } from '../../domain/assistants/usage-limit.js';
import { chooseAssistant } from '../../infra/assistants/choose-assistant.js';
import { createAssistantProvider } from '../../infra/assistants/create-provider.js';
import { AssistantError } from '../../infra/assistants/types.js';
import { EnvLeakBlockedError } from '../../services/codebases/check-before-spawn.js';
import { processEnvFor } from '../../services/codebases/untrusted-code.js';
import type { ServiceContext } from '../../services/context.js';
import {
  rememberProviderSession,
  sessionForTurn,
  startFreshSession,
} from '../../services/conversations/assistant-session.js';
import {
  claimTurn,
  endTurn,
  TurnSuperseded,
  type TurnClaim,
  type TurnOwner,
} from '../../services/conversations/turn-state.js';
import type { AssistantSession } from '../../db/repositories/assistant-sessions.js';
import { TurnRecorder } from '../../services/conversations/turn-recorder.js';
import { SilentFailure, streamTurn, type StreamedTurn } from './turn-stream.js';
import { prepareTurnWorkspace } from '../../services/conversations/turn-workspace.js';
import { CANCELLABLE_HEARTBEAT_MS, keepHeartbeating } from '../heartbeats.js';

/** A failure that ends the turn for the user, as opposed to one a retry may fix. */
function turnFailure(error: unknown): { code: string; message: string } | undefined {
  const cause = error instanceof SilentFailure ? error.failure : error;
  if (cause instanceof AssistantError) return { code: cause.code, message: cause.message };
  if (cause instanceof EnvLeakBlockedError) return { code: 'env_leak_detected', message: cause.detail };
  return undefined;
}

interface TurnScope {
  deps: ServiceContext;
  context: Context;
  conversation: Conversation;
  message: Message;
  recorder: TurnRecorder;
  claim: TurnClaim;
  /** Aborted when the activity is cancelled or the recorder cannot write any more. */
  signal: AbortSignal;
}

interface AnsweredTurn extends StreamedTurn {
  session: AssistantSession;
}

/** Prepares the folder and session, then lets the assistant answer; resumes its session when it can. */
async function answer(scope: TurnScope): Promise<AnsweredTurn> {
  const { deps, context, conversation, message, recorder, signal } = scope;
  const { knex } = deps.db;
  const workspace = await prepareTurnWorkspace(deps, conversation, signal);
  const assistant = chooseAssistant(workspace.config);
  const { session, resumeId } = await sessionForTurn(knex, {
    conversationId: conversation.id,
    codebaseId: workspace.codebase?.id ?? null,
    assistant,
    cwd: workspace.cwd,
  });
  await recorder.event('turn_started', {
    attempt: context.info.attempt,
    assistant,
    restarted: scope.claim === 'restarted',
  });
  const provider = createAssistantProvider(assistant, {
    environment: deps.environment,
    config: workspace.config.effective,
    logger: deps.logger,
    home: deps.home,
    processEnv: processEnvFor(deps.env, workspace.untrusted),
  });
  const ask = async (
    resumeSessionId: string | undefined,
    current: AssistantSession,
  ): Promise<AnsweredTurn> => {
    const request = {
      prompt: message.content,
      cwd: workspace.cwd,
      resumeSessionId,
      signal,
      repositoryEnv: workspace.config.effective.env,
    };
    const streamed = await streamTurn(provider.runTurn(request), {
      context,
      recorder,
      announceSession: resumeSessionId === undefined,
    });
    return { ...streamed, session: current };
  };
  try {
    return await ask(resumeId, session);
  } catch (error) {
    // A provider session that cannot be resumed (expired, or lost in a crash) must not wedge the
    // conversation: when resuming failed before any output, the turn starts a fresh session once.
    if (!(resumeId && error instanceof SilentFailure)) throw error;
    deps.logger.warn({ event: 'conversation.resume_failed', conversationId: conversation.id, assistant });
    return ask(undefined, await startFreshSession(knex, session));
  }
}

/**
 * One turn: the assistant answers one user message, in the conversation's folder, resuming the
 * conversation's provider session. Output is stored and journalled as it streams. A turn that
 * an earlier attempt left half done starts over from a clean slate, so the answer is stored once.
 */
export async function runAssistantTurn(deps: ServiceContext, input: TurnInput): Promise<TurnResult> {
  const { knex } = deps.db;
  const context = Context.current();
  // A try after a usage-limit wait counts its attempts after the earlier rounds', so it takes over.
  const owner: TurnOwner = {
    messageId: input.messageId,
    attempt: context.info.attempt + (input.round ?? 0) * TURN_ATTEMPTS,
  };
  const claim = await claimTurn(knex, owner);
  if (claim === 'finished') return { outcome: 'already_finished' };

  const [conversation, message] = await Promise.all([
    findConversation(knex, input.conversationId),
    findMessage(knex, input.messageId),
  ]);
  if (!conversation || !message) {
    const details = { code: 'not_found', error: 'The message is gone.' };
    await endTurn(knex, { ...input, attempt: owner.attempt, end: 'failed', details });
    return { outcome: 'failed' };
  }
  // The assistant stops when Temporal cancels the attempt, or when its output can no longer be
  // written (a later attempt took the turn over, or the database failed).
  const stop = new AbortController();
  const stopOnCancel = () => stop.abort();
  context.cancellationSignal.addEventListener('abort', stopOnCancel, { once: true });
  const recorder = new TurnRecorder({
    knex,
    conversationId: input.conversationId,
    owner,
    onFailure: () => stop.abort(),
  });
  const stopHeartbeats = keepHeartbeating(context, CANCELLABLE_HEARTBEAT_MS);
  try {
    const answered = await answer({
      deps,
      context,
      conversation,
      message,
      recorder,
      claim,
      signal: stop.signal,
    });
    await recorder.settle();
    await endTurn(knex, {
      ...input,
      attempt: owner.attempt,
      end: 'completed',
      details: answered.details,
      alsoWrite: async (trx) => {
        if (answered.providerSessionId)
          await rememberProviderSession(trx, answered.session, answered.providerSessionId);
      },
    });
    return { outcome: 'completed' };
  } catch (error) {
    await recorder.settle().catch(() => undefined);
    if (recorder.failure instanceof TurnSuperseded || error instanceof TurnSuperseded) {
      deps.logger.warn({ event: 'conversation.turn_superseded', ...owner });
      return { outcome: 'superseded' };
    }
    if (
      context.cancellationSignal.aborted &&
      context.cancellationDetails?.cancelRequested &&
      !recorder.failure
    ) {
      // Cancelled on request (not a worker shutting down): the turn ends here, for good.
      await endTurn(knex, {
        ...input,
        attempt: owner.attempt,
        end: 'cancelled',
        details: { reason: 'cancelled' },
      });
      deps.logger.info({ event: 'conversation.turn_cancelled', ...owner });
      throw new CancelledFailure('the turn was cancelled');
    }
    const failure = context.cancellationSignal.aborted || recorder.failure ? undefined : turnFailure(error);
    // Anything else is left for the next attempt, which clears this attempt's partial output first.
    if (!failure) throw recorder.failure ?? error;
    const reset = input.mayWait ? usageLimitReset(failure.message) : undefined;
    if (reset) {
      // The turn stays running: the conversation waits for the reset, then tries it again.
      const until = reset.toISOString();
      await recorder.event('turn_waiting', { reason: 'usage_limit', until, error: failure.message });
      await recorder.settle();
      deps.logger.info({ event: 'conversation.turn_waiting', ...owner, until });
      return { outcome: 'usage_limited', resetAt: until };
    }
    recorder.recordFailure(failure.message, failure.code);
    await recorder.settle();
    const details = { code: failure.code, error: failure.message };
    await endTurn(knex, { ...input, attempt: owner.attempt, end: 'failed', details });
    deps.logger.warn({
      event: 'conversation.turn_failed',
      conversationId: input.conversationId,
      ...owner,
      code: failure.code,
    });
    return { outcome: 'failed' };
  } finally {
    stopHeartbeats();
    context.cancellationSignal.removeEventListener('abort', stopOnCancel);
  }
}
