import type { ThreadEvent, ThreadItem } from '@openai/codex-sdk';
import type { AssistantChunk } from './types.js';

const BLOCK_SEPARATOR = '\n\n';
type Phase = 'item.started' | 'item.updated' | 'item.completed';

function mcpOutput(item: Extract<ThreadItem, { type: 'mcp_tool_call' }>): string {
  if (item.error) return item.error.message;
  return (item.result?.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('\n');
}

/**
 * Turns `codex exec --experimental-json` events into chunks. Agent messages may grow through
 * item.updated events, so only the new part of their text is sent each time.
 */
export class CodexEventMapper {
  private wroteText = false;
  private readonly textSent = new Map<string, string>();
  private readonly toolsAnnounced = new Set<string>();
  /** The last stream-level error, for a turn that ends without saying how. */
  lastError: string | undefined;

  map(event: ThreadEvent): AssistantChunk[] {
    switch (event.type) {
      case 'thread.started':
        return [{ kind: 'session', providerSessionId: event.thread_id }];
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return this.item(event.type, event.item);
      case 'turn.completed':
        return [
          {
            kind: 'done',
            isError: false,
            // Codex counts cached input inside input_tokens already.
            usage: { inputTokens: event.usage.input_tokens, outputTokens: event.usage.output_tokens },
          },
        ];
      case 'turn.failed':
        return [{ kind: 'done', isError: true, errorMessage: event.error.message }];
      case 'error':
        this.lastError = event.message;
        return [{ kind: 'error', message: event.message }];
      default:
        return [];
    }
  }

  private item(phase: Phase, item: ThreadItem): AssistantChunk[] {
    switch (item.type) {
      case 'agent_message':
        return this.text(item.id, item.text);
      case 'command_execution': {
        const failed = item.status === 'failed' || (item.exit_code ?? 0) !== 0;
        return this.tool(
          phase,
          item.id,
          'command_execution',
          { command: item.command },
          item.aggregated_output,
          failed,
        );
      }
      case 'mcp_tool_call':
        return this.tool(
          phase,
          item.id,
          `${item.server}.${item.tool}`,
          item.arguments,
          mcpOutput(item),
          item.status === 'failed',
        );
      case 'file_change': {
        const output = item.changes.map((change) => `${change.kind} ${change.path}`).join('\n');
        return this.tool(
          phase,
          item.id,
          'file_change',
          { changes: item.changes },
          output,
          item.status === 'failed',
        );
      }
      case 'web_search':
        return this.tool(phase, item.id, 'web_search', { query: item.query }, '', false);
      case 'error':
        return phase === 'item.completed' ? [{ kind: 'error', message: item.message }] : [];
      default:
        return []; // reasoning and to-do lists are not part of the reply
    }
  }

  private text(id: string, text: string): AssistantChunk[] {
    const sent = this.textSent.get(id);
    if (sent !== undefined && !text.startsWith(sent)) return []; // a rewrite: keep what was sent
    const fresh = text.slice(sent?.length ?? 0);
    if (!fresh) return [];
    this.textSent.set(id, text);
    const separate = sent === undefined && this.wroteText;
    this.wroteText = true;
    return [{ kind: 'text', text: separate ? BLOCK_SEPARATOR + fresh : fresh }];
  }

  private tool(
    phase: Phase,
    id: string,
    name: string,
    input: unknown,
    output: string,
    failed: boolean,
  ): AssistantChunk[] {
    const chunks: AssistantChunk[] = [];
    if (!this.toolsAnnounced.has(id)) {
      this.toolsAnnounced.add(id);
      chunks.push({ kind: 'tool_call', toolCallId: id, name, input });
    }
    if (phase === 'item.completed')
      chunks.push({ kind: 'tool_result', toolCallId: id, output, isError: failed });
    return chunks;
  }
}
