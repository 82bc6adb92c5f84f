// Names and shapes shared by the workflowRun workflow, its activities and the API.
import type {
  AssistantOptions,
  Provider,
  ScriptLanguage,
  WorkflowDefinition,
} from '../workflow-definitions/types.js';

export const RUN_WORKFLOW_TYPE = 'workflowRun';

/** Deterministic from the run's id, so a retried POST or a resume finds the same execution. */
export function runWorkflowId(runId: string): string {
  return `run-${runId}`;
}

export interface CancelSignal {
  actor: string;
  reason?: string;
}

/** Ends a usage-limit wait now: the waiting nodes ask the assistant again at once. */
export interface WakeSignal {
  actor: string;
}

export interface ApproveSignal {
  actor: string;
  comment?: string;
}

export interface RejectSignal {
  actor: string;
  reason?: string;
  /** Decided by the API with the gate's history: rework (the gate asks again) or end the run. */
  rework?: boolean;
}

/** What a node ended with, as the workflow keeps it (and as a resume carries it over). */
export interface NodeResult {
  status: 'succeeded' | 'failed' | 'skipped';
  /** Text, or the parsed JSON of an `output_format` node. */
  output?: unknown;
  error?: string;
  /** The assistant session an assistant node ended in, for `context` and `persist_session`. */
  sessionId?: string;
}

export interface RunWorkflowInput {
  runId: string;
  /** Nodes that succeeded in an earlier execution of this run: a resume skips them. */
  completed?: Record<string, NodeResult>;
  /** Nodes running at once; the assistant queue's own limit applies on top. */
  maxParallelNodes?: number;
  /** Keep CairnRunStatus up to date (only when the namespace has Cairn's search attributes). */
  searchAttributes?: boolean;
}

/** A sub-workflow node's child run, stored; or why it could not be (the node fails with that). */
export type ChildRunStart = { runId: string } | { error: string };

/** Everything a run needs, fixed when it starts (prepareRun). */
export interface RunContext {
  runId: string;
  conversationId: string | null;
  codebaseId: string | null;
  /** The definition as it was when the run was started, normalized. */
  definition: WorkflowDefinition;
  message: string;
  /** The run's worktree (or scratch folder when the conversation has no codebase). */
  cwd: string;
  artifactsDir: string;
  docsDir: string;
  baseBranch?: string;
  /** The folder holds a fork's code (its worktree is `untrusted`): no node gets secrets. */
  untrusted?: boolean;
  scriptsDir: string;
  /** Bodies of the command files the definition's command nodes name, looked up at start. */
  commands: Record<string, string>;
  /** Values of the workflow's declared inputs (`$INPUTS.<name>`, `INPUT_<NAME>`). */
  inputs?: Record<string, string>;
}

/** One node's work, as its activity receives it. */
export interface NodeExecution {
  runId: string;
  nodeId: string;
  conversationId: string | null;
  cwd: string;
  /** The folder holds a fork's code: no repository `env`, no env-key consent, no code-host tokens. */
  untrusted?: boolean;
  timeoutMs?: number;
  /** A JSON Schema the output must satisfy; the output is then the parsed JSON. */
  outputFormat?: Record<string, unknown>;
}

export interface BashNodeInput extends NodeExecution {
  script: string;
  /** ARGUMENTS, BASE_BRANCH, ..., <ID>_OUTPUT: user text reaches the script only this way. */
  env: Record<string, string>;
}

export interface ScriptNodeInput extends NodeExecution {
  script: string;
  language: ScriptLanguage;
  /** Python packages (`uv run --with`). */
  deps: string[];
  /** The same variables bash nodes get. */
  env: Record<string, string>;
}

export interface AssistantNodeInput extends NodeExecution {
  /** The prompt, variables already substituted. */
  prompt: string;
  codebaseId: string | null;
  provider?: Provider;
  model?: string;
  /** Continue this assistant session (a loop without fresh_context, `context`, `persist_session`). */
  resumeSessionId?: string;
  /** The node's tools, effort, thinking, MCP servers, skills, agents, hooks and idle timeout. */
  options?: AssistantOptions;
}

/** A node's end as its activity reports it: a failure here is the node's, not the worker's. */
export interface NodeOutcome {
  status: 'succeeded' | 'failed';
  output?: unknown;
  error?: string;
  tokens: number;
  costUsd: number;
  durationMs: number;
  /** The assistant session the node's turn ran in (assistant nodes), for a loop to continue it. */
  sessionId?: string;
  /** The turn hit the assistant's usage limit, which resets then (ISO): the node waits and goes on. */
  usageLimitResetAt?: string;
}
