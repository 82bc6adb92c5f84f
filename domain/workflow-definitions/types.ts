/**
 * The shapes of a workflow definition (docs/workflow-format.md): the wire form, as written in
 * YAML (snake_case keys), and the normalized form `validateWorkflowDefinition` returns (camelCase
 * keys, defaults applied, durations in milliseconds, `when` parsed). Every value in the
 * normalized form is plain JSON, so a definition can be passed to Temporal workflow code.
 */
import type { Condition } from './condition-tokens.js';

export type { Condition } from './condition-tokens.js';

export const PROVIDERS = ['claude', 'codex'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const TRIGGER_RULES = ['all_success', 'one_success', 'all_done'] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

export const NODE_KINDS = ['prompt', 'command', 'bash', 'approval'] as const;

/** Where a run works: its own worktree (the default), or the codebase's own checkout. */
export const ISOLATION_MODES = ['worktree', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];
export type NodeKind = (typeof NODE_KINDS)[number];

/** A JSON Schema, as written under `output_format`. */
export type JsonSchemaObject = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Wire form: what the YAML file says.

export interface WireRetry {
  attempts: number;
  delay?: string;
}

export interface WireApproval {
  message: string;
  capture_response?: boolean;
  on_reject?: { prompt: string; max_attempts?: number };
}

export interface WireNodeFields {
  id: string;
  depends_on?: string[];
  when?: string;
  trigger_rule?: TriggerRule;
  provider?: Provider;
  model?: string;
  retry?: WireRetry;
  timeout?: string;
  output_format?: JsonSchemaObject;
}

export type WireNode = WireNodeFields &
  ({ prompt: string } | { command: string } | { bash: string } | { approval: WireApproval });

export interface WireWorkflowDefinition {
  name: string;
  description?: string;
  provider?: Provider;
  model?: string;
  isolation?: IsolationMode;
  nodes: WireNode[];
}

// ---------------------------------------------------------------------------------------------
// Normalized form: what the rest of Cairn works with.

export interface RetryPolicy {
  /** Tries in all, 1 to 5. */
  attempts: number;
  /** Pause between tries, 0 to 10 minutes (default 30 seconds). */
  delayMs: number;
}

interface NodeBase {
  id: string;
  /** Ids this node waits for, in the order written (default `[]`). */
  dependsOn: string[];
  triggerRule: TriggerRule;
  /** The parsed `when` condition; undefined means always. */
  when: Condition | undefined;
  /** The `when` text as written, for display. */
  whenSource: string | undefined;
  /** Undefined only for approval nodes without a timeout: they wait indefinitely. */
  timeoutMs: number | undefined;
}

export interface PromptNode extends NodeBase {
  kind: 'prompt';
  prompt: string;
  provider?: Provider;
  model?: string;
  retry: RetryPolicy | undefined;
  outputFormat: JsonSchemaObject | undefined;
}

export interface CommandNode extends NodeBase {
  kind: 'command';
  /** The command's name: `.cairn/commands/<command>.md`, or a bundled command. */
  command: string;
  provider?: Provider;
  model?: string;
  retry: RetryPolicy | undefined;
  outputFormat: JsonSchemaObject | undefined;
}

export interface BashNode extends NodeBase {
  kind: 'bash';
  bash: string;
  provider?: undefined;
  model?: undefined;
  retry: RetryPolicy | undefined;
  outputFormat: JsonSchemaObject | undefined;
}

export interface ApprovalNode extends NodeBase {
  kind: 'approval';
  approval: {
    message: string;
    captureResponse: boolean;
    /** Rework after a rejection (the prompt gets $REJECTION_REASON), then the gate asks again. */
    onReject?: { prompt: string; maxAttempts: number };
  };
  provider?: undefined;
  model?: undefined;
  retry: undefined;
  outputFormat: undefined;
}

export type WorkflowNode = PromptNode | CommandNode | BashNode | ApprovalNode;

export interface WorkflowDefinition {
  name: string;
  description?: string;
  provider?: Provider;
  model?: string;
  /** `none`: runs work in the codebase's own checkout instead of a worktree of their own. */
  isolation: IsolationMode;
  /** In the order written; ids are unique and the graph has no cycles. */
  nodes: WorkflowNode[];
}

/** Where a node is in a run, as far as scheduling is concerned. */
export type NodeState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

// ---------------------------------------------------------------------------------------------
// Limits from the format description.

export const MAX_NODES = 100;
export const MAX_NAME_LENGTH = 64;
export const MAX_ID_LENGTH = 64;
export const MAX_RETRY_ATTEMPTS = 5;
export const DEFAULT_RETRY_DELAY_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 60 * 60_000;

/** `name`: letters, digits, `-`, `_`, `.`; starting with a letter or digit; no `..`. */
export const WORKFLOW_NAME_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A command's name follows the same rule: it becomes a file name. */
export const COMMAND_NAME_PATTERN = WORKFLOW_NAME_PATTERN;
/** Node `id`: letters, digits, `_`, `-`; starting with a letter. */
export const NODE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
