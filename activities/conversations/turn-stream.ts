import type { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { AssistantSession } from '../../db/repositories/assistant-sessions.js';
import { AssistantError, type AssistantChunk } from '../assistants/types.js';
import { rememberProviderSession } from './assistant-session.js';
import type { TurnRecorder } from './turn-recorder.js';

export interface StreamedTurn {
  /** usage and costUsd from the assistant's last chunk, when it gave them. */
  details: Record<string, unknown>;
}

/** Thrown when the assistant failed before producing anything: nothing needs undoing. */
export class SilentFailure extends Error {
  override readonly name = 'SilentFailure';
  constructor(readonly failure: AssistantError) {
    super(failure.message);
  }
}

/**
 * Records an assistant's chunks as they come: the provider session id is stored (and announced
 * once, when new), everything else goes to the recorder. Heartbeats on every chunk.
 */
export async function streamTurn(
  chunks: AsyncIterable<AssistantChunk>,
  options: { knex: Knex; context: Context; recorder: TurnRecorder; session: AssistantSession },
): Promise<StreamedTurn> {
  const details: Record<string, unknown> = {};
  let produced = false;
  try {
    for await (const chunk of chunks) {
      options.context.heartbeat();
      if (chunk.kind === 'session') {
        if (await rememberProviderSession(options.knex, options.session, chunk.providerSessionId)) {
          options.recorder.record(chunk);
        }
        continue;
      }
      if (chunk.kind === 'done') {
        if (chunk.usage) details.usage = chunk.usage;
        if (chunk.costUsd !== undefined) details.costUsd = chunk.costUsd;
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
  return { details };
}
