// Workflow-run engine overhead against a real `cairn start` (embedded Temporal, SQLite) whose
// assistant is the fake claude executable, answering at once, so the figures are Cairn's own.
// Targets (issue 6): per-node engine overhead under 50 ms median; POST /api/workflows/{name}/run
// -> first `node_started` on the SSE stream under 200 ms median; BENCH_PARALLEL (20) runs of a
// 5-node workflow at once all complete, and the SSE streams carry every event of their
// histories. Prints JSON.
import { performance } from 'node:perf_hooks';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempRepo } from '../test/support/git-repos.js';
import { openSse, type SseConnection, type SseFrame } from '../test/support/sse-client.js';
import { callJson, printFigures, stats, withStandaloneCairn } from './support.js';

const CHAIN_NODES = Number(process.env.BENCH_CHAIN_NODES ?? 10);
const CHAIN_RUNS = Number(process.env.BENCH_CHAIN_RUNS ?? 5);
const START_RUNS = Number(process.env.BENCH_START_RUNS ?? 20);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 20);

function chain(name: string, kind: 'bash' | 'prompt'): string {
  const nodes = Array.from({ length: CHAIN_NODES }, (_, index) => {
    const id = `n${index + 1}`;
    const body = kind === 'bash' ? `    bash: echo ${index + 1}\n` : `    prompt: |\n      [fake:reply ok]\n`;
    const after = index === 0 ? '' : `    depends_on: [n${index}]\n`;
    return `  - id: ${id}\n${after}${body}`;
  });
  return `name: ${name}\nnodes:\n${nodes.join('')}`;
}

const SINGLE = `name: single
nodes:
  - id: only
    bash: echo only
`;

// Five nodes: a fan-out of a bash node and a prompt node, joined, then a last bash node.
const FIVE = `name: five
nodes:
  - id: a
    bash: echo a
  - id: b
    depends_on: [a]
    bash: echo "b after $A_OUTPUT"
  - id: c
    depends_on: [a]
    prompt: |
      [fake:reply c ok]
  - id: d
    depends_on: [b, c]
    bash: echo d
  - id: e
    depends_on: [d]
    bash: echo e
`;

interface Run {
  runId: string;
  status: string;
}
interface RunEvent {
  type: string;
  nodeId: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

const call = callJson;

const ENDS = ['run_completed', 'run_failed', 'run_cancelled'];
const runEnd = (stream: SseConnection, runId: string) =>
  stream.waitFor((frame) => ENDS.includes(frame.data.type) && frame.data.runId === runId, 180_000);

async function history(base: string, runId: string) {
  return call<{ run: Run; events: RunEvent[] }>(base, 'GET', `/api/workflows/runs/${runId}`);
}

async function conversationOn(base: string, codebaseId: string) {
  const conversation = await call<{ id: string }>(base, 'POST', '/api/conversations', {
    codebase_id: codebaseId,
  });
  const stream = await openSse(`${base}/api/stream/${conversation.id}`, { lastEventId: 0 });
  await stream.waitForComment('connected');
  return { id: conversation.id, stream };
}

/** Per node: gap between consecutive node_started events minus the node's own durationMs. */
async function measureOverhead(base: string, codebaseId: string, workflow: string) {
  const { id, stream } = await conversationOn(base, codebaseId);
  const overheads: number[] = [];
  // The two halves of the overhead: inside a node (node_started -> node_completed, less the
  // node's own time) and between nodes (node_completed -> the next node_started).
  const withinNode: number[] = [];
  const betweenNodes: number[] = [];
  const runTotals: number[] = [];
  const statuses: string[] = [];
  for (let index = 0; index < CHAIN_RUNS; index += 1) {
    const run = await call<Run>(base, 'POST', `/api/workflows/${workflow}/run`, {
      message: `overhead ${index}`,
      conversationId: id,
    });
    await runEnd(stream, run.runId);
    const { run: done, events } = await history(base, run.runId);
    statuses.push(done.status);
    const at = (event: RunEvent) => Date.parse(event.createdAt);
    const started = new Map(
      events.filter((e) => e.type === 'node_started').map((e) => [e.nodeId!, at(e)] as const),
    );
    const completed = new Map(events.filter((e) => e.type === 'node_completed').map((e) => [e.nodeId!, e]));
    for (const [nodeId, from] of started) {
      const end = completed.get(nodeId);
      if (end) withinNode.push(at(end) - from - Number(end.payload.durationMs));
    }
    for (let node = 1; node < CHAIN_NODES; node += 1) {
      const from = started.get(`n${node}`);
      const to = started.get(`n${node + 1}`);
      const duration = Number(completed.get(`n${node}`)?.payload.durationMs);
      if (from === undefined || to === undefined || !Number.isFinite(duration)) continue;
      overheads.push(to - from - duration);
      betweenNodes.push(to - at(completed.get(`n${node}`)!));
    }
    const runStarted = events.find((e) => e.type === 'run_started');
    const runCompleted = events.find((e) => e.type === 'run_completed');
    if (runStarted && runCompleted) runTotals.push(at(runCompleted) - at(runStarted));
  }
  stream.close();
  return {
    workflow,
    nodes: CHAIN_NODES,
    runs: CHAIN_RUNS,
    statuses: [...new Set(statuses)],
    perNodeOverheadMs: stats(overheads),
    withinNodeOverheadMs: stats(withinNode),
    completedToNextStartedMs: stats(betweenNodes),
    runStartedToCompletedMs: stats(runTotals),
    targetMedianMs: 50,
  };
}

/** POST .../run (sent) -> the run's first node_started frame on its conversation's stream. */
async function measureStart(base: string, codebaseId: string) {
  const { id, stream } = await conversationOn(base, codebaseId);
  const seen = new Set<string>();
  const toFirstNode: number[] = [];
  const toAccepted: number[] = [];
  for (let index = 0; index < START_RUNS; index += 1) {
    // Waiting before posting: the frame may arrive before the 202 does.
    const firstNode = stream.waitFor(
      (frame) => frame.data.type === 'node_started' && !seen.has(String(frame.data.runId)),
      60_000,
    );
    const sent = performance.now();
    const run = await call<Run>(base, 'POST', '/api/workflows/single/run', {
      message: `start ${index}`,
      conversationId: id,
    });
    toAccepted.push(performance.now() - sent);
    const frame = await firstNode;
    toFirstNode.push(performance.now() - sent);
    if (frame.data.runId !== run.runId) throw new Error('a node_started of another run arrived first');
    seen.add(run.runId);
    await runEnd(stream, run.runId);
  }
  stream.close();
  return {
    runs: START_RUNS,
    postToAcceptedMs: stats(toAccepted),
    postToFirstNodeStartedMs: stats(toFirstNode),
    targetMedianMs: 200,
  };
}

const key = (runId: unknown, type: unknown, nodeId: unknown) => `${runId}|${type}|${nodeId ?? ''}`;

async function measureParallel(base: string, codebaseId: string) {
  const dashboard = await openSse(`${base}/api/stream/__dashboard__`, { lastEventId: 0 });
  await dashboard.waitForComment('connected');
  const conversations = await Promise.all(
    Array.from({ length: PARALLEL }, () => conversationOn(base, codebaseId)),
  );
  const started = performance.now();
  const runs = await Promise.all(
    conversations.map((conversation, index) =>
      call<Run>(base, 'POST', '/api/workflows/five/run', {
        message: `parallel ${index}`,
        conversationId: conversation.id,
      }),
    ),
  );
  await Promise.all(runs.map((run, index) => runEnd(conversations[index]!.stream, run.runId)));
  const wallMs = performance.now() - started;
  // The dashboard may trail its conversation's stream by a moment.
  await Promise.all(runs.map((run) => runEnd(dashboard, run.runId)));

  const frameKeys = (frames: SseFrame[], runId: string) =>
    new Set(frames.filter((f) => f.data.runId === runId).map((f) => key(runId, f.data.type, f.data.nodeId)));
  let completed = 0;
  let withFiveNodesCompleted = 0;
  let conversationStreamsComplete = 0;
  let dashboardComplete = 0;
  let historyEvents = 0;
  const problems: string[] = [];
  for (const [index, run] of runs.entries()) {
    const { run: done, events } = await history(base, run.runId);
    historyEvents += events.length;
    const hasEnd = events.some((e) => e.type === 'run_completed');
    if (done.status === 'completed' && hasEnd) completed += 1;
    else problems.push(`${run.runId}: status ${done.status}`);
    const nodesCompleted = events.filter((e) => e.type === 'node_completed').length;
    if (nodesCompleted === 5) withFiveNodesCompleted += 1;
    else problems.push(`${run.runId}: ${nodesCompleted} node_completed`);
    const expected = new Set(events.map((e) => key(run.runId, e.type, e.nodeId)));
    const same = (got: Set<string>) =>
      got.size === expected.size && [...expected].every((value) => got.has(value));
    const onConversation = frameKeys(conversations[index]!.stream.frames, run.runId);
    if (same(onConversation)) conversationStreamsComplete += 1;
    else problems.push(`${run.runId}: conversation stream ${onConversation.size}/${expected.size}`);
    const onDashboard = frameKeys(dashboard.frames, run.runId);
    if (same(onDashboard)) dashboardComplete += 1;
    else problems.push(`${run.runId}: dashboard ${onDashboard.size}/${expected.size}`);
  }
  dashboard.close();
  for (const conversation of conversations) conversation.stream.close();
  return {
    runs: PARALLEL,
    nodesPerRun: 5,
    wallMs: Math.round(wallMs),
    completed,
    withFiveNodeCompleted: withFiveNodesCompleted,
    historyEvents,
    conversationStreamsWithEveryEvent: conversationStreamsComplete,
    dashboardWithEveryEventOfRun: dashboardComplete,
    problems,
  };
}

const fakes = fakeAssistants();
const repo = makeTempRepo({
  files: {
    'README.md': '# bench\n',
    '.cairn/workflows/chain-bash.yaml': chain('chain-bash', 'bash'),
    '.cairn/workflows/chain-prompt.yaml': chain('chain-prompt', 'prompt'),
    '.cairn/workflows/single.yaml': SINGLE,
    '.cairn/workflows/five.yaml': FIVE,
  },
});
try {
  const figures = await withStandaloneCairn(fakes.env, async (base) => {
    const codebase = await call<{ id: string }>(base, 'POST', '/api/codebases', { path: repo.path });
    const bash = await measureOverhead(base, codebase.id, 'chain-bash');
    const prompt = await measureOverhead(base, codebase.id, 'chain-prompt');
    const start = await measureStart(base, codebase.id);
    const parallel = await measureParallel(base, codebase.id);
    return { overhead: { bash, prompt }, start, parallel };
  });
  printFigures('runs', { database: 'sqlite', ...figures });
} finally {
  fakes.cleanup();
  repo.cleanup();
}
