import { Context } from '@temporalio/activity';
import { findConversation } from '../../db/repositories/conversations.js';
import { findMessage } from '../../db/repositories/messages.js';
import type { TurnInput, TurnResult } from '../../domain/conversations/conversation-workflow.js';
import { chooseAssistant } from '../assistants/choose-assistant.js';
import { createAssistantProvider } from '../assistants/create-provider.js';
import { AssistantError } from '../assistants/types.js';
import { EnvLeakBlockedError } from '../codebases/check-before-spawn.js';
import type { ActivityDependencies } from '../index.js';
import { rememberProviderSession, sessionForTurn } from './assistant-session.js';
import { claimTurn, endTurn } from './turn-state.js';
import { TurnRecorder } from './turn-recorder.js';
import { prepareTurnWorkspace } from './turn-workspace.js';

/** A failure that ends the turn for the user, as opposed to one a retry may fix. */
function turnFailure(error: unknown): { code: string; message: string } | undefined {
  if (error instanceof AssistantError) return { code: error.code, message: error.message };
  if (error instanceof EnvLeakBlockedError) return { code: 'env_leak_detected', message: error.detail };
  return undefined;
}

/** Keeps Temporal informed while a turn is quiet (a long tool call), so only a dead worker times out. */
function keepHeartbeating(context: Context): () => void {
  const every = Math.max(1_000, Math.floor((context.info.heartbeatTimeoutMs ?? 60_000) / 3));
  const timer = setInterval(() => context.heartbeat(), every);
  return () => clearInterval(timer);
}

/**
 * One turn: the assistant answers one user message, in the conversation's folder, resuming the
 * conversation's provider session. Output is stored and journalled as it streams. A turn that
 * an earlier attempt left half done starts over from a clean slate, so the answer is stored once.
 */
export async function runAssistantTurn(deps: ActivityDependencies, input: TurnInput): Promise<TurnResult> {
  const { knex } = deps.db;
  const context = Context.current();
  const claim = await claimTurn(knex, input.messageId);
  if (claim === 'finished') return { outcome: 'already_finished' };

  const [conversation, message] = await Promise.all([
    findConversation(knex, input.conversationId),
    findMessage(knex, input.messageId),
  ]);
  const recorder = new TurnRecorder({ knex, conversationId: input.conversationId, messageId: input.messageId });
  if (!conversation || !message) {
    await endTurn(knex, { ...input, end: 'failed', details: { code: 'not_found', error: 'The message is gone.' } });
    return { outcome: 'failed' };
  }

  const stopHeartbeats = keepHeartbeating(context);
  const signal = context.cancellationSignal;
  try {
    const workspace = await prepareTurnWorkspace(deps, conversation, signal);
    const assistant = chooseAssistant(workspace.config);
    const { session, resumeId } = await sessionForTurn(knex, {
      conversationId: conversation.id,
      codebaseId: workspace.codebase?.id ?? null,
      assistant,
      cwd: workspace.cwd,
    });
    await recorder.event('turn_started', { attempt: context.info.attempt, assistant, restarted: claim === 'restarted' });
    const provider = createAssistantProvider(assistant, {
      environment: deps.environment,
      config: workspace.config.effective,
      logger: deps.logger,
      home: deps.home,
    });
    const usage: Record<string, unknown> = {};
    for await (const chunk of provider.runTurn({
      prompt: message.content,
      cwd: workspace.cwd,
      resumeSessionId: resumeId,
      signal,
      repositoryEnv: workspace.config.effective.env,
    })) {
      context.heartbeat();
      if (chunk.kind === 'session') {
        if (await rememberProviderSession(knex, session, chunk.providerSessionId)) recorder.record(chunk);
        continue;
      }
      if (chunk.kind === 'done') {
        if (chunk.usage) usage.usage = chunk.usage;
        if (chunk.costUsd !== undefined) usage.costUsd = chunk.costUsd;
        if (chunk.isError) throw new AssistantError('assistant_error', chunk.errorMessage ?? 'The assistant reported an error.');
      }
      recorder.record(chunk);
    }
    await recorder.settle();
    await endTurn(knex, { ...input, end: 'completed', details: usage });
    return { outcome: 'completed' };
  } catch (error) {
    const failure = signal.aborted ? undefined : turnFailure(error);
    if (!failure) {
      // Left for the next attempt, which clears this attempt's partial output first.
      await recorder.settle().catch(() => undefined);
      throw error;
    }
    recorder.recordFailure(failure.message, failure.code);
    await recorder.settle();
    await endTurn(knex, { ...input, end: 'failed', details: { code: failure.code, error: failure.message } });
    deps.logger.warn({ event: 'conversation.turn_failed', conversationId: input.conversationId, messageId: input.messageId, code: failure.code });
    return { outcome: 'failed' };
  } finally {
    stopHeartbeats();
  }
}
