// What a chat shows of a workflow run started from it: one progress message with each node's
// state, and one message per approval gate. Folded from the run's events; pure.

export type NodeState = 'running' | 'completed' | 'failed' | 'skipped' | 'waiting';
export type RunEnd = 'completed' | 'failed' | 'cancelled' | 'abandoned';

export interface GateView {
  /** The approval_requested event's id: each time a gate asks is a gate message of its own. */
  key: string;
  nodeId: string;
  message: string;
  decision?: { decision: 'approved' | 'rejected'; actor: string | null; note: string | undefined };
  /** The run was resumed while this ask waited: the new execution asks again, this ask is gone. */
  expired?: boolean;
}

export interface RunView {
  runId: string;
  workflowName: string;
  nodes: Array<{ id: string; state: NodeState; durationMs?: number }>;
  gates: GateView[];
  costUsd: number;
  end: RunEnd | undefined;
  error: string | undefined;
  /** The run's execution in the Temporal Web UI, when Cairn knows where that UI is. */
  temporalUrl?: string;
}

export interface RunEventLike {
  id: number;
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
}

export function emptyRunView(runId: string, workflowName: string, temporalUrl?: string): RunView {
  const view: RunView = {
    runId,
    workflowName,
    nodes: [],
    gates: [],
    costUsd: 0,
    end: undefined,
    error: undefined,
  };
  return temporalUrl ? { ...view, temporalUrl } : view;
}

const NODE_STATES: Record<string, NodeState> = {
  node_started: 'running',
  node_retrying: 'running',
  node_reworking: 'running',
  node_iteration: 'running',
  node_waiting: 'running',
  node_resumed: 'running',
  node_item_started: 'running',
  node_item_completed: 'running',
  node_item_failed: 'running',
  sub_workflow_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  approval_requested: 'waiting',
};

const RUN_ENDS: Record<string, RunEnd> = {
  run_completed: 'completed',
  run_failed: 'failed',
  run_cancelled: 'cancelled',
  run_abandoned: 'abandoned',
};

export function applyRunEvent(view: RunView, event: RunEventLike): RunView {
  let next = view;
  const state = NODE_STATES[event.type];
  if (state && event.nodeId) next = withNode(next, event.nodeId, state, event.payload);
  if (event.type === 'approval_requested' && event.nodeId) {
    const gate = {
      key: String(event.id),
      nodeId: event.nodeId,
      message: String(event.payload.message ?? ''),
    };
    next = { ...next, gates: [...next.gates, gate] };
  }
  if (event.type === 'approval_received') next = decideGate(next, event);
  if (event.type === 'run_resumed') {
    next = { ...next, gates: next.gates.map((gate) => (gate.decision ? gate : { ...gate, expired: true })) };
  }
  const end = RUN_ENDS[event.type];
  if (end) {
    const error =
      typeof event.payload.error === 'string' ? event.payload.error : stringOr(event.payload.reason);
    next = { ...next, end, error };
  }
  return next;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function withNode(view: RunView, id: string, state: NodeState, payload: Record<string, unknown>): RunView {
  const durationMs = typeof payload.durationMs === 'number' ? payload.durationMs : undefined;
  const cost = typeof payload.costUsd === 'number' ? payload.costUsd : 0;
  const known = view.nodes.some((node) => node.id === id);
  const nodes = known
    ? view.nodes.map((node) => (node.id === id ? { id, state, durationMs } : node))
    : [...view.nodes, { id, state, durationMs }];
  return { ...view, nodes, costUsd: view.costUsd + cost };
}

/** A decision names no gate: it answers the oldest one still asking, as the run does (services/runs/waiting-gate.ts). */
function decideGate(view: RunView, event: RunEventLike): RunView {
  const index = view.gates.findIndex((gate) => !gate.decision && !gate.expired);
  if (index < 0) return view;
  const decision = event.payload.decision === 'approve' ? 'approved' : 'rejected';
  const note = stringOr(event.payload.comment) ?? stringOr(event.payload.reason);
  const gates = [...view.gates];
  gates[index] = { ...gates[index]!, decision: { decision, actor: event.actor, note } };
  return { ...view, gates };
}

const MARKS: Record<NodeState, string> = {
  running: '⏳',
  completed: '✅',
  failed: '❌',
  skipped: '⏭',
  waiting: '⏸',
};

const END_WORDS: Record<RunEnd, string> = {
  completed: '✅ completed',
  failed: '❌ failed',
  cancelled: '⏹ cancelled',
  abandoned: '⏹ abandoned',
};

/** The progress message: the run, each node with its mark and time, the total cost, the outcome. */
export function runProgressText(view: RunView): string {
  const status = view.end ? END_WORDS[view.end] : 'running';
  const lines = [`Run **${view.workflowName}** \`${view.runId}\`: ${status}`];
  for (const node of view.nodes) {
    const time = node.durationMs !== undefined ? ` (${formatDuration(node.durationMs)})` : '';
    lines.push(`${MARKS[node.state]} ${node.id}${time}`);
  }
  if (view.costUsd > 0) lines.push(`Cost: $${view.costUsd.toFixed(4)}`);
  if (view.end && view.end !== 'completed' && view.error) lines.push(`Reason: ${clip(view.error, 500)}`);
  // A run of hundreds of nodes still fits one message of the smallest platform, link included.
  const link = view.temporalUrl ? `\n[Open in Temporal](${view.temporalUrl})` : '';
  return clip(lines.join('\n'), MESSAGE_ROOM - link.length) + link;
}

/** Progress and gate messages must fit one message of every platform (Discord: 2,000). */
const MESSAGE_ROOM = 1_900;

function clip(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}

function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = Math.round(ms / 1_000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** A gate's message: what it asks and, once decided, who decided and what they said. */
export function gateText(view: RunView, gate: GateView): string {
  const header = `⏸ **Approval needed** in run **${view.workflowName}** \`${view.runId}\` (${gate.nodeId})`;
  const asked = gate.message.trim() ? `${header}\n\n${clip(gate.message.trim(), 1_200)}` : header;
  if (gate.expired) return `${asked}\n\nThis ask ended when the run was resumed.`;
  if (!gate.decision) return asked;
  const { decision, actor, note } = gate.decision;
  const verdict = decision === 'approved' ? '✅ Approved' : '❌ Rejected';
  return `${asked}\n\n${verdict}${actor ? ` by ${actor}` : ''}${note ? `: ${clip(note, 300)}` : ''}`;
}

/**
 * What the buttons under a gate send back: the run and which ask of the gate they answer, so a
 * button left on an old ask cannot decide a newer one. Telegram allows 64 bytes.
 */
export function gateButtonData(decision: 'approve' | 'reject', runId: string, gateKey: string): string {
  return `${decision}:${runId}:${gateKey}`;
}

export interface GateButton {
  decision: 'approve' | 'reject';
  runId: string;
  gateKey: string;
}

export function parseGateButton(data: string): GateButton | undefined {
  const match = /^(approve|reject):([0-9a-f-]{36}):(\d{1,15})$/i.exec(data);
  if (!match) return undefined;
  return {
    decision: match[1]!.toLowerCase() as GateButton['decision'],
    runId: match[2]!.toLowerCase(),
    gateKey: match[3]!,
  };
}

/** The ask of a gate a decision would answer now: the oldest one still undecided. */
export function waitingGateKey(view: RunView): string | undefined {
  return view.end ? undefined : view.gates.find((gate) => !gate.decision && !gate.expired)?.key;
}

/** The question a Reject button asks; a reply to it carries the reason (read back by its run id). */
export function rejectReasonPrompt(runId: string): string {
  return `Why reject run \`${runId}\`? Reply to this message with the reason.`;
}

/** The run a reason question asks about; the whole text must be the question, as the bot wrote it. */
export function runIdOfReasonPrompt(text: string): string | undefined {
  return /^Why reject run `?([0-9a-f-]{36})`?\? Reply to this message with the reason\.$/i
    .exec(text.trim())?.[1]
    ?.toLowerCase();
}
