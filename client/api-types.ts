/**
 * The API's shapes as the client reads them: only the fields it uses. The server checks every
 * answer against the OpenAPI document's schemas, which are the full contract (docs/api.md).
 */
export type RunStatus = 'pending' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled' | 'abandoned';

export interface Run {
  runId: string;
  workflowName: string;
  status: RunStatus;
  message: string | null;
  conversationId: string | null;
  codebaseId: string | null;
  currentNode: string | null;
  error: string | null;
  totalTokens: number;
  totalCostUsd: number;
  startedAt: string | null;
  completedAt: string | null;
  createdAt: string;
}

export interface RunEvent {
  id: number;
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface RunDetail {
  run: Run;
  events: RunEvent[];
  /** The run's execution in the Temporal Web UI; null when the server knows no UI. */
  temporalUrl?: string | null;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export interface Codebase {
  id: string;
  name: string;
  url: string | null;
  path: string | null;
  sourcePath: string;
  defaultBranch: string | null;
  createdAt: string;
}

export interface Conversation {
  id: string;
  platform_conversation_id: string;
  codebase_id: string | null;
  title: string | null;
}

export interface MessageAccepted {
  message_id: number;
  conversation_id: string;
  status: 'started' | 'queued';
  position: number;
}

export interface CommandReply {
  command: string;
  ok: boolean;
  text: string;
  runId?: string;
  conversation?: { id: string; platformConversationId: string; codebaseId: string | null };
}

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];

export interface Schedule {
  id: string;
  codebaseId: string;
  codebaseName: string;
  workflowName: string;
  source: string;
  cron: string;
  timezone: string | null;
  message: string;
  overlap: string;
  paused: boolean;
  note: string | null;
  nextRunsAt: string[];
  lastFiredAt: string | null;
}
