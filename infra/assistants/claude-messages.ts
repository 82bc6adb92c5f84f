import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { AssistantChunk } from './types.js';

type AssistantMessage = Extract<SDKMessage, { type: 'assistant' }>;
type UserMessage = Extract<SDKMessage, { type: 'user' }>;
type ResultMessage = Extract<SDKMessage, { type: 'result' }>;
type StreamMessage = Extract<SDKMessage, { type: 'stream_event' }>;

interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

/** Between two text blocks, so "Let me look." and "Found it." do not run together. */
const BLOCK_SEPARATOR = '\n\n';

function toolOutputText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content);
  return (content as ContentBlock[])
    .map((block) => (block.type === 'text' ? (block.text ?? '') : `[${block.type}]`))
    .join('\n');
}

/**
 * Turns the SDK's messages into chunks. Text arrives twice with partial messages on (deltas,
 * then the whole block in an assistant message), so blocks already streamed are not repeated.
 * Subagent text (parent_tool_use_id set) is the subagent's, not the reply, and is left out.
 */
export class ClaudeMessageMapper {
  private sessionId: string | undefined;
  private wroteText = false;
  /** A streamed text block began: its first delta gets the separator. */
  private blockStarted = false;
  private streamingMessageId: string | undefined;
  private readonly streamedMessageIds = new Set<string>();

  map(message: SDKMessage): AssistantChunk[] {
    const chunks: AssistantChunk[] = [];
    const sessionId = (message as { session_id?: string }).session_id;
    if (sessionId && sessionId !== this.sessionId) {
      this.sessionId = sessionId;
      chunks.push({ kind: 'session', providerSessionId: sessionId });
    }
    if (message.type === 'stream_event') chunks.push(...this.streamEvent(message));
    else if (message.type === 'assistant') chunks.push(...this.assistant(message));
    else if (message.type === 'user') chunks.push(...this.toolResults(message));
    else if (message.type === 'result') chunks.push(this.done(message));
    return chunks;
  }

  private text(text: string): AssistantChunk[] {
    if (!text) return [];
    const chunk: AssistantChunk = { kind: 'text', text: this.wroteText ? BLOCK_SEPARATOR + text : text };
    this.wroteText = true;
    return [chunk];
  }

  private streamEvent(message: StreamMessage): AssistantChunk[] {
    if (message.parent_tool_use_id !== null) return [];
    const event = message.event;
    if (event.type === 'message_start') this.streamingMessageId = event.message.id;
    if (event.type === 'content_block_start' && event.content_block.type === 'text') this.blockStarted = true;
    if (event.type !== 'content_block_delta' || event.delta.type !== 'text_delta') return [];
    if (this.streamingMessageId) this.streamedMessageIds.add(this.streamingMessageId);
    const text = event.delta.text;
    if (!text) return [];
    const separate = this.blockStarted && this.wroteText;
    this.blockStarted = false;
    this.wroteText = true;
    return [{ kind: 'text', text: separate ? BLOCK_SEPARATOR + text : text }];
  }

  private assistant(message: AssistantMessage): AssistantChunk[] {
    const blocks = message.message.content as ContentBlock[];
    if (message.error) {
      const detail = blocks
        .map((block) => block.text ?? '')
        .join(' ')
        .trim();
      return [{ kind: 'error', message: detail || `Claude reported ${message.error}` }];
    }
    const streamed = this.streamedMessageIds.has(message.message.id);
    const chunks: AssistantChunk[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && !streamed && message.parent_tool_use_id === null) {
        chunks.push(...this.text(block.text ?? ''));
      } else if (block.type === 'tool_use' && block.id && block.name) {
        chunks.push({ kind: 'tool_call', toolCallId: block.id, name: block.name, input: block.input ?? {} });
      }
    }
    return chunks;
  }

  private toolResults(message: UserMessage): AssistantChunk[] {
    const content = message.message.content;
    if (!Array.isArray(content)) return [];
    return (content as ContentBlock[])
      .filter((block) => block.type === 'tool_result' && block.tool_use_id)
      .map((block) => ({
        kind: 'tool_result' as const,
        toolCallId: block.tool_use_id as string,
        output: toolOutputText(block.content),
        isError: block.is_error === true,
      }));
  }

  private done(message: ResultMessage): AssistantChunk {
    const usage = message.usage;
    // Cached input is still input the model read; the cost field says what it cost.
    const inputTokens =
      (usage.input_tokens ?? 0) +
      (usage.cache_creation_input_tokens ?? 0) +
      (usage.cache_read_input_tokens ?? 0);
    const chunk: AssistantChunk = {
      kind: 'done',
      isError: message.is_error,
      usage: { inputTokens, outputTokens: usage.output_tokens ?? 0 },
      costUsd: message.total_cost_usd,
    };
    if (message.is_error) {
      const detail = message.subtype === 'success' ? message.result : message.errors.join('; ');
      chunk.errorMessage = detail || `Claude ended the turn with ${message.subtype}`;
    }
    return chunk;
  }
}
