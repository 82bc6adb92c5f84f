import type { Knex } from 'knex';
import { appendEvent } from '../../db/repositories/events.js';
import { appendMessage, type MessageRole } from '../../db/repositories/messages.js';
import {
  clipToolText,
  toolText,
  type ConversationEventType,
} from '../../domain/conversations/conversation-events.js';
import type { AssistantChunk } from '../../infra/assistants/types.js';
import { asTurnOwner, type TurnOwner } from './turn-state.js';

export interface TurnRecorderOptions {
  knex: Knex;
  conversationId: string;
  /** The user message this turn answers, and the attempt writing: each write checks it still owns the turn. */
  owner: TurnOwner;
  /** Called once when a write fails (the turn was taken over, or the database failed), to stop the assistant. */
  onFailure?: (error: unknown) => void;
  /** Text deltas within this window go out as one event, bounding journal writes. */
  coalesceMs?: number;
}

const DEFAULT_COALESCE_MS = 30;

/**
 * Turns an assistant's chunks into stored messages (each pointing at the user message) and
 * journal events, in order. Writes are chained so a timer flush never overtakes a chunk.
 */
export class TurnRecorder {
  private readonly coalesceMs: number;
  private chain: Promise<void> = Promise.resolve();
  /** The first write that failed; nothing is written after it. */
  failure: unknown;
  private segment = '';
  private unsent = '';
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TurnRecorderOptions) {
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  }

  /** Records one chunk; resolves when its writes are queued, not necessarily done. */
  record(chunk: AssistantChunk): void {
    switch (chunk.kind) {
      case 'text':
        this.segment += chunk.text;
        this.unsent += chunk.text;
        this.flushTimer ??= setTimeout(() => {
          this.flushTimer = undefined;
          this.enqueue((trx) => this.sendDelta(trx));
        }, this.coalesceMs);
        return;
      case 'session':
        this.closeSegment();
        this.enqueue((trx) =>
          this.store(trx, 'system', `Assistant session ${chunk.providerSessionId}`, 'session', {
            providerSessionId: chunk.providerSessionId,
          }),
        );
        return;
      case 'tool_call':
        this.closeSegment();
        this.enqueue((trx) =>
          this.store(trx, 'tool', chunk.name, 'tool_call', {
            toolCallId: chunk.toolCallId,
            name: chunk.name,
            input: clipToolText(toolText(chunk.input)),
          }),
        );
        return;
      case 'tool_result':
        this.closeSegment();
        this.enqueue((trx) =>
          this.store(
            trx,
            'tool',
            clipToolText(chunk.output),
            'tool_result',
            { toolCallId: chunk.toolCallId, isError: chunk.isError },
            { output: clipToolText(chunk.output) },
          ),
        );
        return;
      case 'error':
        this.closeSegment();
        this.enqueue((trx) =>
          this.store(trx, 'error', chunk.message, 'error', {}, { message: chunk.message }),
        );
        return;
      case 'done':
        this.closeSegment();
        return;
    }
  }

  /** Stores an error the turn ended with (not one the assistant reported along the way). */
  recordFailure(message: string, code: string): void {
    this.closeSegment();
    this.enqueue((trx) => this.store(trx, 'error', message, 'error', { code }, { message }));
  }

  /** Waits for every write; rethrows the first one that failed. */
  async settle(): Promise<void> {
    this.closeSegment();
    await this.chain;
    if (this.failure) throw this.failure;
  }

  /** Emits an event not tied to a stored message. */
  event(type: ConversationEventType, payload: Record<string, unknown>): Promise<void> {
    this.enqueue((trx) => this.append(trx, type, payload));
    return this.chain;
  }

  private closeSegment(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.segment === '') return;
    const text = this.segment;
    this.segment = '';
    this.enqueue(async (trx) => {
      await this.sendDelta(trx);
      const stored = await appendMessage(trx, this.newMessage('assistant', text, { kind: 'text' }));
      await this.append(trx, 'text_done', { storedMessageId: stored.id, text });
    });
  }

  private async sendDelta(trx: Knex): Promise<void> {
    if (this.unsent === '') return;
    const text = this.unsent;
    this.unsent = '';
    await this.append(trx, 'text', { text });
  }

  private async store(
    trx: Knex,
    role: MessageRole,
    content: string,
    type: ConversationEventType,
    details: Record<string, unknown>,
    eventExtras: Record<string, unknown> = {},
  ): Promise<void> {
    const message = this.newMessage(role, content, { kind: type, ...details });
    const stored = await appendMessage(trx, message);
    await this.append(trx, type, { storedMessageId: stored.id, ...details, ...eventExtras });
  }

  private newMessage(role: MessageRole, content: string, metadata: Record<string, unknown>) {
    return {
      conversationId: this.options.conversationId,
      role,
      content,
      metadata,
      replyToMessageId: this.options.owner.messageId,
    };
  }

  private async append(
    trx: Knex,
    type: ConversationEventType,
    payload: Record<string, unknown>,
  ): Promise<void> {
    await appendEvent(trx, {
      streamKey: this.options.conversationId,
      type,
      payload: { messageId: this.options.owner.messageId, ...payload },
    });
  }

  /** Queues a write, done in a transaction that holds the turn; after a failure nothing more is written. */
  private enqueue(write: (trx: Knex) => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await asTurnOwner(this.options.knex, this.options.owner, write);
      } catch (error) {
        this.failure = error;
        this.options.onFailure?.(error);
      }
    });
  }
}
