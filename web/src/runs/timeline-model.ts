// The run page's timeline, from the run's events: one row per node (a bar from its start to its
// end, by outcome) and the run's events in order, times relative to the run's start, a node's
// log lines and tool calls collapsed into one entry per stretch. Pure (unit-tested).
import type { WorkflowRunEvent } from '../api/types.js';

/** `stopped`: the run ended (cancelled, abandoned, failed elsewhere) while the node was under way. */
export type BarOutcome = 'running' | 'waiting' | 'completed' | 'failed' | 'skipped' | 'stopped';

export interface TimelineRow {
  nodeId: string;
  /** Milliseconds from the run's start. */
  startMs: number;
  endMs: number;
  outcome: BarOutcome;
  /** The bar's end is now, not an event: the node is still under way. */
  open: boolean;
}

export interface TimelineEntry {
  /** The first event's id: a stable key. */
  id: number;
  atMs: number;
  nodeId: string | null;
  type: string;
  text: string;
  /** How many events the entry stands for (log lines or tool calls of a stretch). */
  count: number;
}

export interface Timeline {
  /** The span the bars are drawn over, from the run's start: at least 1 ms. */
  spanMs: number;
  rows: TimelineRow[];
  entries: TimelineEntry[];
}

const RUN_ENDS = new Set(['run_completed', 'run_failed', 'run_cancelled', 'run_abandoned']);
/** Events that end a node's bar, and how. */
const NODE_ENDS: Record<string, BarOutcome> = {
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
};
/** Events that leave a node waiting: at a gate, or out an assistant's usage limit. */
const WAITS = new Set(['approval_requested', 'node_waiting']);
/** Events of a stretch that collapse into one entry: lines of a log, calls to tools. */
const COLLAPSED: Record<string, (count: number) => string> = {
  node_log: (count) => `${count} log line${count === 1 ? '' : 's'}`,
  tool_call: (count) => `${count} tool call${count === 1 ? '' : 's'}`,
};

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
const short = (value: string, max = 120) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** How many log lines a `node_log` event carries. */
function logLineCount(payload: Record<string, unknown>): number {
  if (Array.isArray(payload.lines)) return payload.lines.length;
  return typeof payload.line === 'string' ? 1 : 0;
}

/** The words of one event in the list. */
function describe(event: WorkflowRunEvent): string {
  const payload = event.payload as Record<string, unknown>;
  const node = event.nodeId ?? '';
  const why = (value: unknown) => (text(value) ? `: ${short(text(value)!)}` : '');
  switch (event.type) {
    case 'run_started':
      return 'run started';
    case 'run_resumed':
      return `run resumed${event.actor ? ` by ${event.actor}` : ''}`;
    case 'run_completed':
      return 'run completed';
    case 'run_failed':
      return `run failed${why(payload.error)}`;
    case 'run_cancelled':
      return `run cancelled${event.actor ? ` by ${event.actor}` : ''}${why(payload.reason)}`;
    case 'run_abandoned':
      return `run abandoned${event.actor ? ` by ${event.actor}` : ''}`;
    case 'node_started':
      return `${node} started${text(payload.kind) ? ` (${text(payload.kind)})` : ''}`;
    case 'node_completed':
      return `${node} completed`;
    case 'node_failed':
      return `${node} failed${why(payload.error)}`;
    case 'node_skipped':
      return `${node} skipped${why(payload.reason)}`;
    case 'node_retrying':
      return `${node} retrying${typeof payload.attempt === 'number' ? ` (attempt ${payload.attempt})` : ''}`;
    case 'node_waiting':
      return `${node} waiting${text(payload.reason) === 'usage_limit' ? ' for the usage limit' : ''}`;
    case 'node_resumed':
      return `${node} resumed`;
    case 'approval_requested':
      return `${node} waits for approval${why(payload.message)}`;
    case 'approval_received': {
      const decision = payload.decision === 'reject' ? 'rejected' : 'approved';
      return `${decision}${event.actor ? ` by ${event.actor}` : ''}${why(payload.comment ?? payload.reason)}`;
    }
    default:
      return node ? `${node}: ${event.type.replace(/_/g, ' ')}` : event.type.replace(/_/g, ' ');
  }
}

/**
 * The timeline of a run from its events (in id order, each once). `runStartedAt` is where the
 * times count from; `now` closes the bars of nodes still under way while the run is live.
 */
export function buildTimeline(
  events: readonly WorkflowRunEvent[],
  runStartedAt: string,
  now: number,
  live: boolean,
): Timeline {
  const origin = Date.parse(runStartedAt);
  const at = (event: WorkflowRunEvent) => Math.max(0, Date.parse(event.createdAt) - origin);
  const rows = new Map<string, TimelineRow>();
  const entries: TimelineEntry[] = [];
  let runEnd: number | undefined;

  for (const event of events) {
    const time = at(event);
    const node = event.nodeId;
    if (RUN_ENDS.has(event.type)) runEnd = time;
    if (event.type === 'run_resumed') runEnd = undefined;
    if (node) {
      const row = rows.get(node);
      const ended = NODE_ENDS[event.type];
      if (!row) {
        rows.set(node, {
          nodeId: node,
          startMs: time,
          endMs: time,
          outcome: ended ?? (WAITS.has(event.type) ? 'waiting' : 'running'),
          open: !ended,
        });
      } else if (ended) {
        Object.assign(row, { endMs: time, outcome: ended, open: false });
      } else if (
        event.type === 'node_started' ||
        event.type === 'node_resumed' ||
        event.type === 'node_retrying'
      ) {
        // A node started again (a resume, a retry) runs on from its first start.
        Object.assign(row, { endMs: Math.max(row.endMs, time), outcome: 'running', open: true });
      } else if (WAITS.has(event.type)) {
        Object.assign(row, { endMs: Math.max(row.endMs, time), outcome: 'waiting', open: true });
      } else {
        row.endMs = Math.max(row.endMs, time);
      }
    }
    const collapse = COLLAPSED[event.type];
    const last = entries.at(-1);
    const amount = event.type === 'node_log' ? logLineCount(event.payload as Record<string, unknown>) : 1;
    if (collapse && last && last.type === event.type && last.nodeId === node) {
      last.count += amount;
      last.text = `${node}: ${collapse(last.count)}`;
      continue;
    }
    if (event.type === 'tool_result') continue; // its call is listed
    entries.push({
      id: event.id,
      atMs: time,
      nodeId: node,
      type: event.type,
      text: collapse ? `${node}: ${collapse(amount)}` : describe(event),
      count: amount,
    });
  }

  const lastEvent = events.length > 0 ? at(events[events.length - 1]!) : 0;
  const end = live ? Math.max(now - origin, lastEvent) : (runEnd ?? lastEvent);
  for (const row of rows.values()) {
    if (!row.open) continue;
    row.endMs = Math.max(row.endMs, end);
    if (!live) {
      // A run that ended with the node under way: its bar ends with the run.
      row.open = false;
      row.outcome = 'stopped';
    }
  }
  const spanMs = Math.max(1, end, ...[...rows.values()].map((row) => row.endMs));
  return { spanMs, rows: [...rows.values()], entries };
}
