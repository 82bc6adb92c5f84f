import type { AssistantOptions } from '../../domain/workflow-definitions/types.js';

export type AssistantName = 'claude' | 'codex';

/** What a provider streams during one turn, in order. Exactly one `done` ends a turn that did not throw. */
export type AssistantChunk =
  | { kind: 'session'; providerSessionId: string }
  /** A piece of assistant text, in order; consecutive pieces concatenate as they are. */
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; toolCallId: string; name: string; input: unknown }
  | { kind: 'tool_result'; toolCallId: string; output: string; isError: boolean }
  /** A non-fatal error the assistant reported; the turn goes on. */
  | { kind: 'error'; message: string }
  | {
      kind: 'done';
      isError: boolean;
      usage?: { inputTokens: number; outputTokens: number };
      costUsd?: number;
      errorMessage?: string;
    };

export interface AssistantTurnRequest {
  prompt: string;
  cwd: string;
  /** Provider session id from the previous turn, to resume its context. */
  resumeSessionId?: string;
  /** Abort kills the whole process tree of the assistant. */
  signal: AbortSignal;
  /** The repository config's `env` map: given to the Claude subprocess only. */
  repositoryEnv?: Record<string, string>;
  /** A workflow node's tools, effort, thinking, MCP servers, skills, agents and hooks (Claude only). */
  options?: AssistantOptions;
}

export interface AssistantProvider {
  readonly name: AssistantName;
  runTurn(request: AssistantTurnRequest): AsyncIterable<AssistantChunk>;
}

export type AssistantErrorCode =
  | 'first_event_timeout'
  | 'process_failed'
  | 'aborted'
  | 'auth_missing'
  | 'executable_not_found'
  | 'assistant_error'
  | 'claude_refuses_root';

/** A turn that could not run or finish. Messages name variables and paths, never secret values. */
export class AssistantError extends Error {
  override readonly name = 'AssistantError';
  constructor(
    readonly code: AssistantErrorCode,
    message: string,
  ) {
    super(message);
  }
}
