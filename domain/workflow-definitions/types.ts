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

export const NODE_KINDS = [
  'prompt',
  'command',
  'bash',
  'approval',
  'script',
  'cancel',
  'loop',
  'workflow',
] as const;

/**
 * What runs a `script` node, as Archon names them (`bun`, `uv`) and as Cairn does (`node`,
 * `python`, `sh`): JavaScript runs with Node, Python with python3 (or uv for `deps`), `sh` with sh.
 */
export const SCRIPT_RUNTIMES = ['sh', 'bun', 'node', 'uv', 'python'] as const;
export type ScriptRuntime = (typeof SCRIPT_RUNTIMES)[number];
export type ScriptLanguage = 'sh' | 'javascript' | 'python';

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
  for_each?: string;
  concurrency?: number;
}

export type WireNode = WireNodeFields &
  (
    | { prompt: string }
    | { command: string }
    | { bash: string }
    | { approval: WireApproval }
    | { script: string; runtime: ScriptRuntime; deps?: string[] }
    | { cancel: string }
    | { loop: WireLoop }
    | { workflow: string; message?: string }
  );

export interface WireLoop {
  prompt?: string;
  command?: string;
  until?: string;
  until_bash?: string;
  until_condition?: string;
  max_iterations: number;
  fresh_context?: boolean;
}

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

/** Reasoning depth, as the Claude Agent SDK and Archon name it. */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

export type ThinkingSetting =
  { type: 'adaptive' } | { type: 'enabled'; budgetTokens?: number } | { type: 'disabled' };

/** A sub-agent the assistant may hand work to (Claude's Task tool), as Archon's `agents` map. */
export interface AgentSpec {
  description: string;
  prompt: string;
  model?: string;
  tools?: string[];
  disallowedTools?: string[];
  skills?: string[];
  maxTurns?: number;
}

/** Hook events a node may answer (the Claude Agent SDK's names). */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PermissionRequest',
  'Setup',
  'TeammateIdle',
  'TaskCompleted',
  'TaskCreated',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One hook: a fixed answer (`response`) or a command given the hook's input on stdin. */
export interface HookMatcher {
  /** A regular expression over the tool name (tool events); every call when absent. */
  matcher?: string;
  response?: Record<string, unknown>;
  command?: string;
  /** Seconds (default 60). */
  timeoutSeconds?: number;
}

/**
 * What an assistant turn of a node is allowed and told, beyond its prompt (Archon's node keys;
 * Claude runs them all, Codex none: see docs/workflow-format.md).
 */
export interface AssistantOptions {
  allowedTools?: string[];
  deniedTools?: string[];
  effort?: EffortLevel;
  thinking?: ThinkingSetting;
  /** A JSON file of MCP servers (`{"mcpServers": {...}}` or the map itself), relative to the run's folder. */
  mcp?: string;
  skills?: string[];
  agents?: Record<string, AgentSpec>;
  hooks?: Partial<Record<HookEvent, HookMatcher[]>>;
  /** The turn fails when the assistant sends nothing for this long. */
  idleTimeoutMs?: number;
}

/**
 * Which assistant session a node's turn continues: a new one (`fresh`, the default), the one of
 * the nearest upstream assistant node (`shared`), or that of the named upstream node.
 */
export type SessionContext = { from: 'fresh' } | { from: 'shared' } | { from: 'node'; nodeId: string };

/**
 * `for_each`: the node runs once per element of an upstream output's list, at most `concurrency`
 * at a time; its output is the list of the elements' outputs, in the list's order.
 */
export interface FanOut {
  /** The list, as written: `$<id>.output` or `$<id>.output.<field>...`. */
  source: string;
  nodeId: string;
  path: string[];
  /** 1 to MAX_FAN_OUT_CONCURRENCY (default DEFAULT_FAN_OUT_CONCURRENCY). */
  concurrency: number;
}

interface NodeBase {
  id: string;
  /** Prompt, command, bash and script nodes only. */
  forEach?: FanOut;
  /** What the node is for: shown, never run. */
  description?: string;
  /** Runs again when its run is resumed, even if it completed before (Archon's `always_run`). */
  alwaysRun?: boolean;
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

/** What prompt, command and loop nodes add: their assistant, its options and its session. */
export interface AssistantNodeFields {
  provider?: Provider;
  model?: string;
  assistant?: AssistantOptions;
  /** Undefined means fresh. */
  context?: SessionContext;
  /** Continue this node's session from the previous run of the workflow in the conversation. */
  persistSession?: boolean;
}

export interface PromptNode extends NodeBase, AssistantNodeFields {
  kind: 'prompt';
  prompt: string;
  retry: RetryPolicy | undefined;
  outputFormat: JsonSchemaObject | undefined;
}

export interface CommandNode extends NodeBase, AssistantNodeFields {
  kind: 'command';
  /** The command's name: `.cairn/commands/<command>.md`, or a bundled command. */
  command: string;
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

export interface ScriptNode extends NodeBase {
  kind: 'script';
  /** Inline code, run as written: nothing is spliced into it. */
  script: string;
  runtime: ScriptRuntime;
  language: ScriptLanguage;
  /** Python packages for `uv run --with` (Python only). */
  deps: string[];
  provider?: undefined;
  model?: undefined;
  retry: RetryPolicy | undefined;
  outputFormat: JsonSchemaObject | undefined;
}

/** Ends the run as cancelled, with this reason (variables substituted), when reached. */
export interface CancelNode extends NodeBase {
  kind: 'cancel';
  cancel: string;
  provider?: undefined;
  model?: undefined;
  retry: undefined;
  outputFormat: undefined;
}

export interface LoopSettings {
  /** Exactly one of prompt and command. */
  prompt?: string;
  command?: string;
  /** Archon's completion signal: `<promise>SIGNAL</promise>`, or the signal ending the output. */
  until?: string;
  /** A bash check after each iteration: exit 0 ends the loop. */
  untilBash?: string;
  /** A condition in the `when` language, over upstream outputs and the loop's own. */
  untilCondition?: { condition: Condition; source: string };
  /** 1 to 50; reaching it without the end condition fails the node. */
  maxIterations: number;
  /** true: a new assistant session each iteration; false: the same session continues. */
  freshContext: boolean;
}

/** An assistant prompt repeated until its end condition holds (docs/workflow-format.md). */
export interface LoopNode extends NodeBase, AssistantNodeFields {
  kind: 'loop';
  loop: LoopSettings;
  retry: undefined;
  outputFormat: JsonSchemaObject | undefined;
}

/**
 * Runs another workflow as a child run (its own run record, linked to this one), with `message`
 * (variables substituted) as its `$ARGUMENTS`. Output: the output of the child's last node that
 * completed.
 */
export interface SubWorkflowNode extends NodeBase {
  kind: 'workflow';
  /** The child workflow's name, found as a run of it would be, in the same codebase. */
  workflow: string;
  message: string;
  provider?: undefined;
  model?: undefined;
  retry: undefined;
  outputFormat: undefined;
}

export type WorkflowNode =
  PromptNode | CommandNode | BashNode | ApprovalNode | ScriptNode | CancelNode | LoopNode | SubWorkflowNode;

export interface WorkflowDefinition {
  name: string;
  description?: string;
  provider?: Provider;
  model?: string;
  /** `none`: runs work in the codebase's own checkout instead of a worktree of their own. */
  isolation: IsolationMode;
  /** Declares that runs may pause for a person (Archon's `interactive`); shown, not enforced. */
  interactive?: boolean;
  /** false: runs with `isolation: none` need not wait for each other on the checkout. */
  mutatesCheckout?: boolean;
  /** Values a run may be started with (`inputs` of the run request), read as `$INPUTS.<name>`. */
  inputs?: Record<string, WorkflowInput>;
  tags?: string[];
  /** Outside systems a run needs configured before it starts (`github`). */
  requires?: WorkflowRequirement[];
  /** Spending this (USD) pauses the run for approval to spend as much again. */
  maxCostUsd?: number;
  /** When Cairn starts runs of this workflow by itself. */
  schedule?: WorkflowSchedule;
  /** In the order written; ids are unique and the graph has no cycles. */
  nodes: WorkflowNode[];
}

/** What a scheduled run does when the previous one is still going (Temporal's overlap policies). */
export const SCHEDULE_OVERLAPS = [
  'skip',
  'buffer_one',
  'buffer_all',
  'cancel_other',
  'terminate_other',
  'allow_all',
] as const;
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];

/** `schedule`: Cairn starts a run of the workflow by itself at these times (docs/workflow-format.md). */
export interface WorkflowSchedule {
  /** Five cron fields (minute hour day-of-month month day-of-week), or `@daily` and the like. */
  cron: string;
  /** The runs' message (`$ARGUMENTS`); empty by default. */
  message: string;
  /** Only for the codebase of this name (or id); every codebase that has the workflow otherwise. */
  codebase?: string;
  /** IANA time zone of the cron times (UTC by default). */
  timezone?: string;
  overlap: ScheduleOverlap;
  /** A time missed while Cairn was down still fires this long after it (default 1h). */
  catchupWindowMs: number;
}

export interface WorkflowInput {
  required: boolean;
  default?: string;
  description?: string;
}

export const WORKFLOW_REQUIREMENTS = ['github', 'gitlab'] as const;
export type WorkflowRequirement = (typeof WORKFLOW_REQUIREMENTS)[number];

/** Where a node is in a run, as far as scheduling is concerned. */
export type NodeState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

// ---------------------------------------------------------------------------------------------
// Limits from the format description.

export const MAX_NODES = 100;
export const MAX_NAME_LENGTH = 64;
export const MAX_ID_LENGTH = 64;
export const MAX_RETRY_ATTEMPTS = 5;
export const MAX_LOOP_ITERATIONS = 50;
export const DEFAULT_RETRY_DELAY_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 60 * 60_000;
export const MAX_FAN_OUT_CONCURRENCY = 20;
/** Runs started by sub-workflow nodes, nested at most this deep under the run a person started. */
export const MAX_SUB_WORKFLOW_DEPTH = 5;
export const DEFAULT_FAN_OUT_CONCURRENCY = 4;
/** A list longer than this fails the node: each element costs the run's history a few events. */
export const MAX_FAN_OUT_ITEMS = 500;

/** `name`: letters, digits, `-`, `_`, `.`; starting with a letter or digit; no `..`. */
export const WORKFLOW_NAME_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A command's name follows the same rule: it becomes a file name. */
export const COMMAND_NAME_PATTERN = WORKFLOW_NAME_PATTERN;
/** Node `id`: letters, digits, `_`, `-`; starting with a letter. */
export const NODE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
