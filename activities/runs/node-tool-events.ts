import type { Knex } from 'knex';
import { clipToolText, toolText } from '../../domain/conversations/conversation-events.js';
import type { NodeExecution } from '../../domain/runs/run-contract.js';
import type { AssistantChunk } from '../../infra/assistants/types.js';
import { recordRunEvent } from '../../services/runs/run-journal.js';

type ToolChunk = Extract<AssistantChunk, { kind: 'tool_call' | 'tool_result' }>;

/**
 * Records an assistant node's tool calls and their results as run events, so they show in the
 * run's history, its conversation's stream and the dashboard. Inputs and outputs are clipped as
 * a conversation's are.
 */
export class NodeToolRecorder {
  /** Tool names by call id: a result names the tool it answers. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly knex: Knex,
    private readonly node: Pick<NodeExecution, 'runId' | 'nodeId' | 'conversationId'>,
  ) {}

  async record(chunk: ToolChunk): Promise<void> {
    const { runId, nodeId, conversationId } = this.node;
    if (chunk.kind === 'tool_call') {
      this.names.set(chunk.toolCallId, chunk.name);
      await recordRunEvent(this.knex, {
        runId,
        nodeId,
        conversationId,
        type: 'tool_call',
        payload: {
          toolCallId: chunk.toolCallId,
          name: chunk.name,
          input: clipToolText(toolText(chunk.input)),
        },
      });
      return;
    }
    await recordRunEvent(this.knex, {
      runId,
      nodeId,
      conversationId,
      type: 'tool_result',
      payload: {
        toolCallId: chunk.toolCallId,
        name: this.names.get(chunk.toolCallId) ?? null,
        isError: chunk.isError,
        output: clipToolText(chunk.output),
      },
    });
  }
}
