import type { ApiClient } from './api-client.js';
import { TERMINAL_RUN_STATUSES, type Run, type RunDetail, type RunEvent } from './api-types.js';
import { openStream, type StreamEvent } from './event-stream.js';
import { EXIT } from './exit-codes.js';
import { formatCost, formatDuration, type Terminal } from './terminal.js';

export interface FollowOptions {
  json: boolean;
  /** Stop with exit 3 when the run waits at a gate, instead of waiting for the decision. */
  noWait: boolean;
  /** Show node logs and tool calls too (`cairn run logs`). */
  logs: boolean;
  /** Print the history so far and return (`cairn run logs` without --follow). */
  once?: boolean;
}

const ENDING_EVENTS = new Set([
  'run_completed',
  'run_failed',
  'run_cancelled',
  'run_abandoned',
  'run_reconciled',
]);

/** The exit code a run's status means (docs/cli.md). */
export function exitForRun(status: Run['status']): number {
  switch (status) {
    case 'completed':
      return EXIT.ok;
    case 'failed':
      return EXIT.runFailed;
    case 'cancelled':
    case 'abandoned':
      return EXIT.runStopped;
    default:
      return EXIT.runWaiting;
  }
}

/** A stream frame as a run event: the frame's own fields are the payload. */
function fromFrame(event: StreamEvent): RunEvent {
  const { type, runId: _runId, nodeId, actor, created_at: createdAt, ...payload } = event.data;
  return {
    id: event.id,
    type,
    nodeId: typeof nodeId === 'string' ? nodeId : null,
    actor: typeof actor === 'string' ? actor : null,
    payload,
    createdAt: String(createdAt ?? ''),
  };
}

/**
 * Prints a run's events as they happen until it ends (or waits at a gate, with noWait), and
 * answers the exit code of its outcome. The stream is opened before the run's history is read,
 * so no event falls between the two; events seen in both are printed once.
 */
export async function followRun(
  api: ApiClient,
  term: Terminal,
  runId: string,
  options: FollowOptions,
): Promise<number> {
  const first = await api.get<RunDetail>(`/api/workflows/runs/${encodeURIComponent(runId)}`);
  const printer = new RunPrinter(term, first.run, options);
  if (options.once || TERMINAL_RUN_STATUSES.includes(first.run.status)) {
    for (const event of first.events) printer.event(event);
    return options.once ? EXIT.ok : printer.summary(first.run);
  }
  const cursor: { lastId?: number } = {};
  const opened = await openStream(api, first.run.conversationId ?? '__dashboard__', cursor);
  const { stream } = opened;
  try {
    const detail = await api.get<RunDetail>(`/api/workflows/runs/${encodeURIComponent(runId)}`);
    let lastId = 0;
    for (const event of detail.events) {
      printer.event(event);
      lastId = event.id;
    }
    // A reconnect before the stream's first event resumes after the history just printed.
    cursor.lastId ??= lastId;
    const state = (run: Run) =>
      TERMINAL_RUN_STATUSES.includes(run.status) || (options.noWait && run.status === 'paused');
    if (state(detail.run)) return printer.summary(detail.run);
    for (let step = await opened.first; !step.done; step = await stream.next()) {
      const frame = step.value;
      if (frame.data.runId !== runId || frame.id <= lastId) continue;
      lastId = frame.id;
      const event = fromFrame(frame);
      printer.event(event);
      if (ENDING_EVENTS.has(event.type) || (options.noWait && event.type === 'approval_requested')) {
        const run = (await api.get<RunDetail>(`/api/workflows/runs/${encodeURIComponent(runId)}`)).run;
        if (state(run)) return printer.summary(run);
      }
    }
    return EXIT.serverError;
  } finally {
    await opened.close();
  }
}

/** How a run's events read on a terminal, or as JSON lines. */
class RunPrinter {
  private readonly startedAt: number;

  constructor(
    private readonly term: Terminal,
    private readonly run: Run,
    private readonly options: FollowOptions,
  ) {
    this.startedAt = Date.parse(run.startedAt ?? run.createdAt);
  }

  event(event: RunEvent): void {
    if (this.options.json) {
      this.term.out(
        JSON.stringify({
          id: event.id,
          type: event.type,
          runId: this.run.runId,
          nodeId: event.nodeId,
          actor: event.actor,
          ...event.payload,
          createdAt: event.createdAt,
        }),
      );
      return;
    }
    const line = this.describe(event);
    if (line === undefined) return;
    const at = Date.parse(event.createdAt);
    const elapsed =
      Number.isFinite(at) && Number.isFinite(this.startedAt) ? Math.max(0, at - this.startedAt) : undefined;
    const clock = elapsed === undefined ? '' : this.term.dim(`${clockOf(elapsed)} `);
    for (const text of line.split('\n')) this.term.out(`${clock}${text}`);
  }

  summary(run: Run): number {
    const code = exitForRun(run.status);
    if (this.options.json) {
      this.term.out(JSON.stringify({ type: 'summary', run, exitCode: code }));
      return code;
    }
    const t = this.term;
    const took =
      run.completedAt && run.startedAt
        ? ` in ${formatDuration(Date.parse(run.completedAt) - Date.parse(run.startedAt))}`
        : '';
    const figures = `${run.totalTokens} tokens, ${formatCost(run.totalCostUsd)}`;
    const colour = run.status === 'completed' ? t.green : run.status === 'paused' ? t.yellow : t.red;
    t.out(colour(`run ${run.runId} ${run.status}${took} (${figures})${run.error ? `: ${run.error}` : ''}`));
    if (run.status === 'paused') t.out(`approve with: cairn run approve ${run.runId}`);
    return code;
  }

  private describe(event: RunEvent): string | undefined {
    const t = this.term;
    const p = event.payload;
    const node = event.nodeId ? t.bold(event.nodeId) : '';
    const id = this.run.runId;
    switch (event.type) {
      case 'run_started':
        return `${t.cyan('▶')} run ${id} (${this.run.workflowName}) started`;
      case 'node_started':
        return `  ${t.cyan('▸')} ${node} started${p.kind ? t.dim(` (${String(p.kind)})`) : ''}`;
      case 'node_completed': {
        const figures = [
          typeof p.durationMs === 'number' ? formatDuration(p.durationMs) : undefined,
          typeof p.tokens === 'number' && p.tokens > 0 ? `${p.tokens} tokens` : undefined,
          typeof p.costUsd === 'number' && p.costUsd > 0 ? formatCost(p.costUsd) : undefined,
        ].filter(Boolean);
        return `  ${t.green('✔')} ${node}${figures.length ? t.dim(` ${figures.join(' · ')}`) : ''}`;
      }
      case 'node_failed':
        return `  ${t.red('✖')} ${node} failed: ${String(p.error ?? '')}`;
      case 'node_skipped':
        return `  ${t.dim('○')} ${node} skipped${p.reason ? t.dim(`: ${String(p.reason)}`) : ''}`;
      case 'node_retrying':
        return `  ${t.yellow('↻')} ${node} retrying (attempt ${String(p.attempt)}): ${String(p.error ?? '')}`;
      case 'node_iteration':
        return `  ${t.dim('↻')} ${node} iteration ${String(p.iteration)}${p.done ? ' ended the loop' : p.error ? t.dim(`: ${String(p.error)}`) : ''}`;
      case 'sub_workflow_started':
        return `  ${t.cyan('↳')} ${node} runs ${String(p.workflowName)} as run ${String(p.childRunId)} (cairn run logs ${String(p.childRunId)} --follow)`;
      case 'node_item_started':
        return `  ${t.dim('▸')} ${node}[${String(p.index)}] started: ${shortText(p.item)}`;
      case 'node_item_completed':
        return `  ${t.green('✔')} ${node}[${String(p.index)}]${typeof p.costUsd === 'number' && p.costUsd > 0 ? t.dim(` ${formatCost(p.costUsd)}`) : ''}`;
      case 'node_item_failed':
        return `  ${t.red('✖')} ${node}[${String(p.index)}] failed: ${String(p.error ?? '')}`;
      case 'node_waiting':
        return `  ${t.yellow('⏳')} ${node} waits for the assistant's usage limit to reset, until ${String(p.until)} (cancel with cairn run cancel ${id})`;
      case 'node_resumed':
        return `  ${t.dim('▶')} ${node} goes on: ${p.wokenBy ? `${String(p.wokenBy)} ended the wait` : 'the usage limit has reset'}`;
      case 'node_reworking':
        return `  ${t.yellow('↻')} ${node} reworking: ${String(p.reason ?? '')}`;
      case 'approval_requested':
        return [
          `  ${t.yellow('⏸')} ${node} waits for approval: ${String(p.message ?? '')}`,
          `    approve: cairn run approve ${id} [--comment "…"]`,
          `    reject:  cairn run reject ${id} --reason "…"`,
        ].join('\n');
      case 'approval_received':
        return p.decision === 'approve'
          ? `  ${t.green('✔')} approved by ${event.actor ?? 'someone'}${p.comment ? `: ${String(p.comment)}` : ''}`
          : `  ${t.red('✖')} rejected by ${event.actor ?? 'someone'}${p.reason ? `: ${String(p.reason)}` : ''}`;
      case 'run_resumed':
        return `${t.cyan('▶')} resumed by ${event.actor ?? 'someone'}`;
      case 'run_woken':
        return `${t.cyan('▶')} ${event.actor ?? 'someone'} ended the usage-limit wait`;
      case 'run_completed':
      case 'run_failed':
      case 'run_cancelled':
      case 'run_abandoned':
      case 'run_reconciled':
        return undefined; // the summary says it
      case 'tool_call':
        return this.options.logs ? `    ${t.dim('⚙')} ${node} ${String(p.name ?? 'tool')}` : undefined;
      case 'tool_result':
        return this.options.logs && p.isError === true
          ? `    ${t.red('⚙')} ${node} ${String(p.name ?? 'tool')} failed`
          : undefined;
      case 'node_log':
        return this.options.logs ? logLines(t, event) : undefined;
      default:
        return undefined;
    }
  }
}

function logLines(t: Terminal, event: RunEvent): string {
  const p = event.payload;
  if (p.truncated === true) return t.dim(`    │ … ${String(p.droppedLines)} more lines not recorded`);
  const lines = Array.isArray(p.lines) ? (p.lines as string[]) : [];
  const mark = p.stream === 'stderr' ? t.yellow('│') : t.dim('│');
  return lines.map((line) => `    ${mark} ${line}`).join('\n');
}

function clockOf(ms: number): string {
  const seconds = Math.floor(ms / 1_000);
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

/** A for_each element on one line: text as it is, anything else as JSON, shortened past 60. */
function shortText(value: unknown): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
