import { expect } from 'chai';
import { buildTimeline } from '../../../web/src/runs/timeline-model.js';
import type { WorkflowRunEvent } from '../../../web/src/api/types.js';

const START = '2026-01-01T10:00:00.000Z';
let nextId = 1;
/** An event `ms` milliseconds after the run's start. */
const at = (
  ms: number,
  type: string,
  nodeId: string | null = null,
  payload: Record<string, unknown> = {},
  actor: string | null = null,
): WorkflowRunEvent => ({
  id: nextId++,
  type,
  nodeId,
  actor,
  payload: payload as WorkflowRunEvent['payload'],
  createdAt: new Date(Date.parse(START) + ms).toISOString(),
});

describe('the run timeline model (web/src/runs/timeline-model.ts)', () => {
  it('draws one bar per node from its start to its end, by outcome, over the run', () => {
    const events = [
      at(0, 'run_started'),
      at(100, 'node_started', 'build', { kind: 'bash' }),
      at(1_100, 'node_completed', 'build', { durationMs: 1_000 }),
      at(1_200, 'node_started', 'test', { kind: 'bash' }),
      at(1_250, 'node_started', 'lint', { kind: 'bash' }),
      at(2_000, 'node_failed', 'lint', { error: 'two warnings' }),
      at(3_200, 'node_completed', 'test'),
      at(3_300, 'node_skipped', 'deploy', { reason: 'a dependency failed' }),
      at(3_400, 'run_failed', null, { error: 'lint failed' }),
    ];
    const timeline = buildTimeline(events, START, Date.parse(START) + 60_000, false);
    expect(timeline.spanMs).to.equal(3_400);
    expect(timeline.rows).to.deep.equal([
      { nodeId: 'build', startMs: 100, endMs: 1_100, outcome: 'completed', open: false },
      { nodeId: 'test', startMs: 1_200, endMs: 3_200, outcome: 'completed', open: false },
      { nodeId: 'lint', startMs: 1_250, endMs: 2_000, outcome: 'failed', open: false },
      { nodeId: 'deploy', startMs: 3_300, endMs: 3_300, outcome: 'skipped', open: false },
    ]);
    expect(timeline.entries.map((entry) => [entry.atMs, entry.text])).to.deep.equal([
      [0, 'run started'],
      [100, 'build started (bash)'],
      [1_100, 'build completed'],
      [1_200, 'test started (bash)'],
      [1_250, 'lint started (bash)'],
      [2_000, 'lint failed: two warnings'],
      [3_200, 'test completed'],
      [3_300, 'deploy skipped: a dependency failed'],
      [3_400, 'run failed: lint failed'],
    ]);
  });

  it("collapses a node's stretch of log lines and of tool calls into one entry each", () => {
    const events = [
      at(0, 'node_started', 'build'),
      at(10, 'node_log', 'build', { stream: 'stdout', lines: ['a', 'b', 'c'] }),
      at(20, 'node_log', 'build', { stream: 'stderr', lines: ['d'] }),
      at(30, 'node_started', 'ask'),
      at(40, 'tool_call', 'ask', { name: 'Read' }),
      at(41, 'tool_result', 'ask', { name: 'Read' }),
      at(42, 'tool_call', 'ask', { name: 'Bash' }),
      at(43, 'tool_result', 'ask', { name: 'Bash' }),
      at(50, 'node_log', 'build', { stream: 'stdout', lines: ['e'] }),
      at(60, 'node_completed', 'build'),
    ];
    const { entries } = buildTimeline(events, START, 0, false);
    expect(entries.map((entry) => [entry.text, entry.count])).to.deep.equal([
      ['build started', 1],
      ['build: 4 log lines', 4],
      ['ask started', 1],
      ['ask: 2 tool calls', 2],
      ['build: 1 log line', 1],
      ['build completed', 1],
    ]);
    expect(entries[1]).to.include({ atMs: 10, id: events[1]!.id });
  });

  it('keeps a live node open until now, marks a gate waiting, and lists approvals', () => {
    const events = [
      at(0, 'run_started'),
      at(500, 'node_started', 'gate', { kind: 'approval' }),
      at(600, 'approval_requested', 'gate', { message: 'Ship it?' }),
      at(700, 'node_started', 'work'),
    ];
    const now = Date.parse(START) + 5_000;
    const waiting = buildTimeline(events, START, now, true);
    expect(waiting.spanMs).to.equal(5_000);
    expect(waiting.rows).to.deep.equal([
      { nodeId: 'gate', startMs: 500, endMs: 5_000, outcome: 'waiting', open: true },
      { nodeId: 'work', startMs: 700, endMs: 5_000, outcome: 'running', open: true },
    ]);
    expect(waiting.entries.at(1)!.text).to.equal('gate started (approval)');
    expect(waiting.entries.at(2)!.text).to.equal('gate waits for approval: Ship it?');

    const decided = buildTimeline(
      [
        ...events,
        at(6_000, 'approval_received', null, { decision: 'approve', comment: 'fine' }, 'mara'),
        at(6_100, 'node_completed', 'gate'),
      ],
      START,
      now + 10_000,
      true,
    );
    expect(decided.rows[0]).to.deep.equal({
      nodeId: 'gate',
      startMs: 500,
      endMs: 6_100,
      outcome: 'completed',
      open: false,
    });
    expect(decided.entries.at(-2)!.text).to.equal('approved by mara: fine');
  });

  it('shows a node waiting out the usage limit as waiting, and running again once it goes on', () => {
    const events = [
      at(0, 'node_started', 'ask'),
      at(100, 'node_waiting', 'ask', { reason: 'usage_limit', until: '2026-01-01T11:00:00.000Z' }),
    ];
    const now = Date.parse(START) + 1_000;
    const waiting = buildTimeline(events, START, now, true);
    expect(waiting.rows[0]).to.include({ outcome: 'waiting', open: true, endMs: 1_000 });
    expect(waiting.entries.at(-1)!.text).to.equal('ask waiting for the usage limit');
    const resumed = buildTimeline([...events, at(800, 'node_resumed', 'ask')], START, now, true);
    expect(resumed.rows[0]).to.include({ outcome: 'running', open: true });
  });

  it('ends the bars of nodes under way with a run that was cancelled, as stopped', () => {
    const events = [
      at(0, 'run_started'),
      at(100, 'node_started', 'slow'),
      at(900, 'run_cancelled', null, { reason: 'not needed' }, 'ada'),
    ];
    const timeline = buildTimeline(events, START, Date.parse(START) + 99_000, false);
    expect(timeline.spanMs).to.equal(900);
    expect(timeline.rows).to.deep.equal([
      { nodeId: 'slow', startMs: 100, endMs: 900, outcome: 'stopped', open: false },
    ]);
    expect(timeline.entries.at(-1)!.text).to.equal('run cancelled by ada: not needed');
  });

  it('counts from the run start, never before it, and has a span of at least 1 ms', () => {
    const empty = buildTimeline([], START, Date.parse(START), false);
    expect(empty).to.deep.equal({ spanMs: 1, rows: [], entries: [] });
    const early = buildTimeline([at(-50, 'node_started', 'a')], START, Date.parse(START), true);
    expect(early.rows[0]).to.include({ startMs: 0 });
  });
});
