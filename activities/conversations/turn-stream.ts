import type { Context } from '@temporalio/activity';
import { AssistantError, type AssistantChunk } from '../../infra/assistants/types.js';
import type { TurnRecorder } from '../../services/conversations/turn-recorder.js';

export interface StreamedTurn {
  /** usage and costUsd from the assistant's last chunk, when it gave them. */
  details: Record<string, unknown>;
  /** The provider session this turn ended in: the one the next turn resumes. */
  providerSessionId?: string;
}

/** Thrown when the assistant failed before producing anything: nothing needs undoing. */
export class SilentFailure extends Error {
  override readonly name = 'SilentFailure';
  constructor(readonly failure: AssistantError) {
    super(failure.message);
  }
}

/**
 * Records an assistant's chunks as they come, heartbeating on each. A session chunk is recorded
 * only when the turn opened a new context (`announceSession`): a resumed session is the same
 * conversation going on, even though its id changes with every turn.
 */
export async function streamTurn(
  chunks: AsyncIterable<AssistantChunk>,
  options: { context: Context; recorder: TurnRecorder; announceSession: boolean },
): Promise<StreamedTurn> {
  const streamed: StreamedTurn = { details: {} };
  let produced = false;
  try {
    for await (const chunk of chunks) {
      options.context.heartbeat();
      if (chunk.kind === 'session') {
        const first = streamed.providerSessionId === undefined;
        streamed.providerSessionId = chunk.providerSessionId;
        if (first && options.announceSession) options.recorder.record(chunk);
        continue;
      }
      if (chunk.kind === 'done') {
        if (chunk.usage) streamed.details.usage = chunk.usage;
        if (chunk.costUsd !== undefined) streamed.details.costUsd = chunk.costUsd;
        if (chunk.isError) {
          throw new AssistantError(
            'assistant_error',
            chunk.errorMessage ?? 'The assistant reported an error.',
          );
        }
      } else {
        produced = true;
      }
      options.recorder.record(chunk);
    }
  } catch (error) {
    if (!produced && error instanceof AssistantError && error.code === 'process_failed') {
      throw new SilentFailure(error);
    }
    throw error;
  }
  return streamed;
}
