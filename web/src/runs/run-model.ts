// What the run page shows of each node, folded from the run's events. Pure (unit-tested). The
// node states and gates come from the same fold the chat doors use (domain/chat/run-view.ts).
import { applyRunEvent, emptyRunView, type NodeState, type RunView } from '../../../domain/chat/run-view.js';
import { allowsRunOperation, type RunOperation } from '../../../domain/runs/run-state-machine.js';
import type { RunStatus, WorkflowRunEvent } from '../api/types.js';

export type { NodeState };

export interface NodeDetail {
  id: string;
  state: NodeState | 'pending';
  kind?: string;
  durationMs?: number;
  tokens?: number;
  costUsd?: number;
  output?: string;
  error?: string;
  logs: Array<{ stream: string; line: string }>;
  dependsOn: string[];
  /** A for_each node's elements, by index, as they start and end. */
  items?: ItemDetail[];
}

export interface ItemDetail {
  index: number;
  state: 'running' | 'completed' | 'failed';
  item?: string;
  output?: string;
  error?: string;
}

export interface RunModel {
  view: RunView;
  nodes: NodeDetail[];
  /** The events applied so far, by id: a replayed event is applied once. */
  seen: ReadonlySet<number>;
}

export interface DefinitionNode {
  id: string;
  depends_on?: string[];
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
/** Text as it is; a list or mapping (a structured output) as indented JSON. */
const shown = (value: unknown) =>
  value === undefined || value === null ? undefined : (text(value) ?? JSON.stringify(value, null, 2));

const ITEM_STATES: Record<string, ItemDetail['state']> = {
  node_item_started: 'running',
  node_item_completed: 'completed',
  node_item_failed: 'failed',
};

function withItem(items: ItemDetail[] = [], type: string, payload: Record<string, unknown>): ItemDetail[] {
  const index = number(payload.index);
  if (index === undefined) return items;
  const before = items.find((item) => item.index === index);
  const item: ItemDetail = {
    index,
    state: ITEM_STATES[type]!,
    item: shown(payload.item) ?? before?.item,
    output: shown(payload.output),
    error: text(payload.error),
  };
  return [...items.filter((other) => other.index !== index), item].sort((a, b) => a.index - b.index);
}

function logLines(payload: Record<string, unknown>): NodeDetail['logs'] {
  const stream = text(payload.stream) ?? 'stdout';
  const lines = Array.isArray(payload.lines)
    ? payload.lines
    : text(payload.line) !== undefined
      ? [payload.line]
      : [];
  return lines.filter((line): line is string => typeof line === 'string').map((line) => ({ stream, line }));
}

export function emptyRunModel(
  runId: string,
  workflowName: string,
  definition: readonly DefinitionNode[] = [],
): RunModel {
  return {
    view: emptyRunView(runId, workflowName),
    nodes: definition.map((node) => ({
      id: node.id,
      state: 'pending',
      logs: [],
      dependsOn: node.depends_on ?? [],
    })),
    seen: new Set(),
  };
}

export function applyRunEvents(model: RunModel, events: readonly WorkflowRunEvent[]): RunModel {
  let { view } = model;
  // A copy of the list, changed in place, with each node's place: one lookup per event, where
  // mapping over every node for each event cost a 100-node run's page tens of thousands of copies.
  const nodes = [...model.nodes];
  const at = new Map(nodes.map((node, index) => [node.id, index]));
  const seen = new Set(model.seen);
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const payload = event.payload as Record<string, unknown>;
    view = applyRunEvent(view, { ...event, payload });
    if (!event.nodeId) continue;
    const id = event.nodeId;
    if (!at.has(id)) {
      at.set(id, nodes.length);
      nodes.push({ id, state: 'pending', logs: [], dependsOn: [] });
    }
    const index = at.get(id)!;
    const node = nodes[index]!;
    const next = { ...node };
    if (event.type === 'node_started') next.kind = text(payload.kind) ?? node.kind;
    if (event.type === 'node_log') next.logs = [...node.logs, ...logLines(payload)];
    if (event.type in ITEM_STATES) next.items = withItem(node.items, event.type, payload);
    if (event.type === 'node_completed' || event.type === 'node_failed') {
      next.output = shown(payload.output) ?? node.output;
      next.error = text(payload.error);
      next.durationMs = number(payload.durationMs) ?? node.durationMs;
      next.tokens = number(payload.tokens) ?? node.tokens;
      next.costUsd = number(payload.costUsd) ?? node.costUsd;
    }
    nodes[index] = next;
  }
  const states = new Map(view.nodes.map((node) => [node.id, node.state]));
  return { view, nodes: nodes.map((node) => ({ ...node, state: states.get(node.id) ?? node.state })), seen };
}

/** The user's operations the run's status allows, from the run state machine itself. */
const USER_OPERATIONS = [
  'approve',
  'reject',
  'cancel',
  'resume',
  'abandon',
  'rerun',
  'delete',
] as const satisfies RunOperation[];
export type UserOperation = (typeof USER_OPERATIONS)[number];

export function allowedOperations(status: RunStatus): UserOperation[] {
  return USER_OPERATIONS.filter((operation) => allowsRunOperation(status, operation));
}

/** Each operation's button. */
export const OPERATION_LABELS: Record<UserOperation, string> = {
  approve: 'Approve',
  reject: 'Reject',
  cancel: 'Cancel',
  resume: 'Resume',
  abandon: 'Abandon',
  rerun: 'Re-run',
  delete: 'Delete',
};

/** Operations that throw work away ask first. */
export const DESTRUCTIVE: ReadonlySet<UserOperation> = new Set(['cancel', 'abandon', 'delete', 'reject']);

/** A run that can still change: its page shows it live. */
export const isLive = (status: RunStatus) =>
  status === 'pending' || status === 'running' || status === 'paused';
