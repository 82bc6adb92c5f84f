import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { RUN_STATUS_ATTRIBUTE } from '../../domain/runs/run-search-attributes.js';
import { allowsRunOperation } from '../../domain/runs/run-state-machine.js';
import { assistantQueueFor, coreQueueOf } from '../../domain/task-queues.js';
import {
  type ApproveSignal,
  type NodeOutcome,
  type NodeResult,
  type RejectSignal,
  type RunContext,
  type RunWorkflowInput,
} from '../../domain/runs/run-contract.js';
import {
  bashEnvironment,
  readyNodes,
  substitute,
  upstreamOf,
  type NodeState,
  type LoopNode,
  type VariableValues,
  type WorkflowNode,
} from '../../domain/workflow-definitions/index.js';
import { runLoop, type LoopRunner } from './run-loop.js';
import { runFanOut, type FanOutRunner } from './run-fan-out.js';
import { runSubWorkflow, type SubWorkflowRunner } from './run-sub-workflow.js';
import type { RunActivities } from '../../activities/runs/run-activities.js';
import type { NodeActivities } from '../../activities/runs/node-activities.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../domain/heartbeats.js';
import { approveSignal, cancelSignal, rejectSignal, wakeSignal } from './run-messages.js';
import { limitWaitMs, MAX_LIMIT_WAITS } from '../../domain/assistants/usage-limit.js';

const DEFAULT_PARALLEL_NODES = 4;
/** Beyond a node's own timeout: time for the activity to notice, kill its process and report. */
const ACTIVITY_MARGIN_MS = 60_000;
/**
 * Short, because a cancellation reaches an activity only with the reply to one of its heartbeats
 * (sent at most every 80% of this): a cancelled run's processes stop within seconds.
 */
const NODE_HEARTBEAT_TIMEOUT = '10 seconds';

type Decision = { kind: 'approve'; signal: ApproveSignal } | { kind: 'reject'; signal: RejectSignal };

/** The approval gate a spent budget asks at: not a node id (those start with a letter). */
const BUDGET_GATE_ID = '$budget';

/**
 * One workflow run: the definition's nodes as a graph, independent nodes side by side (bounded),
 * dependencies, trigger rules and conditions honoured, retries and timeouts per node, approval
 * gates that pause the run. The database records every step; Temporal keeps the run going
 * through crashes and restarts.
 */
export async function workflowRun(input: RunWorkflowInput): Promise<void> {
  const { runId } = input;
  // Preparing makes a git worktree: a regular activity. Like bash nodes it stays on this
  // workflow's own queue, where the server may hand it to this worker at once (eager dispatch).
  const preparation = proxyActivities<RunActivities>({
    startToCloseTimeout: '10 minutes',
    // A worker that dies while preparing is noticed in seconds, not after the ten minutes.
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  // The bookkeeping (a status change, an event) is a short database write: local activities run
  // it in this worker without a round trip through the server, which keeps per-node overhead low.
  const core = proxyLocalActivities<RunActivities>({
    startToCloseTimeout: '1 minute',
    localRetryThreshold: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

  /** Who ended the run and why; no actor when a cancel node of the workflow did. */
  let cancelled: { actor?: string; reason: string; nodeId?: string } | undefined;
  const decisions: Decision[] = [];
  setHandler(cancelSignal, (signal) => {
    cancelled ??= { actor: signal.actor, reason: signal.reason ?? 'cancelled' };
  });
  setHandler(approveSignal, (signal) => void decisions.push({ kind: 'approve', signal }));
  setHandler(rejectSignal, (signal) => void decisions.push({ kind: 'reject', signal }));
  /** Who asked to end the usage-limit waits now, in order (a resume of a waiting run). */
  const wakes: string[] = [];
  setHandler(wakeSignal, (signal) => void wakes.push(signal.actor));

  let prepared: Awaited<ReturnType<RunActivities['prepareRun']>>;
  try {
    prepared = await preparation.prepareRun(runId);
  } catch (error) {
    const reason =
      error instanceof ActivityFailure && error.cause instanceof ApplicationFailure
        ? error.cause.message
        : String(error);
    await core.failUnpreparedRun({ runId, error: reason });
    return;
  }
  const context = prepared.context;
  const ref = { runId, conversationId: context.conversationId };
  const status = await core.beginRun(ref);
  // The state machine says whether the status beginRun found or set lets the run begin: a
  // run cancelled or abandoned before it began does not.
  if (!status || !allowsRunOperation(status, 'begin')) return;
  /** Mirrors the run's status into its execution, for searches in the Temporal Web UI. */
  const showStatus = (value: string) => {
    if (input.searchAttributes) upsertSearchAttributes([{ key: RUN_STATUS_ATTRIBUTE, value }]);
  };
  showStatus('running');

  const states: Record<string, NodeState> = {};
  const results: Record<string, NodeResult> = { ...prepared.completed, ...input.completed };
  for (const [id, result] of Object.entries(results))
    if (result.status === 'succeeded') states[id] = 'succeeded';
  const outputs = () =>
    Object.fromEntries(
      Object.entries(results).flatMap(([id, r]) => (r.status === 'succeeded' ? [[id, r.output]] : [])),
    );
  const values = (item?: { item: unknown; itemIndex: number }): VariableValues => ({
    ...item,
    arguments: context.message,
    baseBranch: context.baseBranch,
    docsDir: context.docsDir,
    artifactsDir: context.artifactsDir,
    runId,
    scriptsDir: context.scriptsDir,
    ...(context.inputs && { inputs: context.inputs }),
    outputs: outputs(),
  });

  const waitingGates: string[] = [];
  /** What the run's assistant turns cost so far, and what it may spend before asking (max_cost_usd). */
  let spent = 0;
  // The run's usage-limit waits so far: numbers each wait the same on every replay, so that the
  // bookkeeping's at-least-once write of a wait is recognised when it runs again.
  let usageLimitWaits = 0;
  let budget = context.definition.maxCostUsd;

  /**
   * The budget is spent: no new node starts until a person approves as much again (a gate made
   * on the fly), or rejects, which cancels the run. Nodes already running finish meanwhile, so a
   * run may end above its budget by what they cost.
   */
  const askToSpendMore = async () => {
    const step = context.definition.maxCostUsd!;
    const message = `This run has spent USD ${spent.toFixed(6)}, reaching its budget of USD ${budget!.toFixed(6)} (max_cost_usd). Approve to allow USD ${step.toFixed(6)} more; reject to stop the run here.`;
    const gate: Extract<WorkflowNode, { kind: 'approval' }> = {
      id: BUDGET_GATE_ID,
      kind: 'approval',
      approval: { message, captureResponse: false },
      dependsOn: [],
      triggerRule: 'all_success',
      when: undefined,
      whenSource: undefined,
      timeoutMs: undefined,
      retry: undefined,
      outputFormat: undefined,
    };
    const decision = await askForApproval(gate);
    if (!decision) return;
    if (decision.kind === 'approve') budget = budget! + step;
    else {
      const reason = decision.signal.reason ? `rejected: ${decision.signal.reason}` : 'rejected: over budget';
      cancelled ??= { actor: decision.signal.actor, reason };
    }
  };
  /** One question at a time: lanes of a for_each node and the main loop share the open one. */
  let budgetQuestion: Promise<void> | undefined;
  const askToSpendMoreOnce = () =>
    (budgetQuestion ??= askToSpendMore().finally(() => (budgetQuestion = undefined)));
  const overBudget = () => budget !== undefined && spent >= budget;

  let endedCount = 0;
  const running = new Set<string>();
  const maxParallel = input.maxParallelNodes ?? DEFAULT_PARALLEL_NODES;
  const nodeScope = new CancellationScope();

  const runNode = async (node: WorkflowNode) => {
    await core.recordNode({ ...ref, nodeId: node.id, type: 'node_started', payload: { kind: node.kind } });
    const result =
      node.kind === 'approval'
        ? await awaitApproval(node)
        : node.kind === 'cancel'
          ? await cancelRun(node)
          : node.kind === 'loop'
            ? await runLoop(node, loopRunner(node))
            : node.kind === 'workflow'
              ? await runSubWorkflow(node, substitute(node.message, values()), subWorkflowRunner(node))
              : node.forEach
                ? await runFanOut(node.forEach, fanOutRunner(node))
                : await runWithRetries(node);
    results[node.id] = result;
    states[node.id] = result.status === 'succeeded' ? 'succeeded' : 'failed';
  };

  const awaitApproval = async (node: Extract<WorkflowNode, { kind: 'approval' }>): Promise<NodeResult> => {
    const rework = node.approval.onReject;
    for (let reworks = 0; ; reworks += 1) {
      const decision = await askForApproval(node);
      if (!decision) return { status: 'failed', error: 'the run was cancelled' };
      if (decision.kind === 'approve') {
        const output = node.approval.captureResponse ? (decision.signal.comment ?? '') : '';
        await core.recordNode({
          ...ref,
          nodeId: node.id,
          type: 'node_completed',
          payload: { output, actor: decision.signal.actor },
        });
        return { status: 'succeeded', output };
      }
      const reason = decision.signal.reason ?? '';
      // The API decided, from the gate's whole history (resumes included), whether this rejection reworks.
      if (!rework || decision.signal.rework !== true) {
        cancelled = { actor: decision.signal.actor, reason: reason ? `rejected: ${reason}` : 'rejected' };
        return { status: 'failed', error: cancelled.reason };
      }
      // The gate declares rework: the assistant addresses the reason, then the gate asks again.
      await core.recordNode({
        ...ref,
        nodeId: node.id,
        type: 'node_reworking',
        payload: { reason, attempt: reworks + 1 },
      });
      const outcome = await runAssistant(
        node,
        substitute(rework.prompt, { ...values(), rejectionReason: reason }),
      );
      if (outcome.status === 'failed')
        return { status: 'failed', error: `rework failed: ${outcome.error ?? ''}` };
    }
  };

  /** A cancel node was reached: the run ends cancelled with its reason, once running nodes stop. */
  const cancelRun = async (node: Extract<WorkflowNode, { kind: 'cancel' }>): Promise<NodeResult> => {
    const reason = substitute(node.cancel, values());
    await core.recordNode({ ...ref, nodeId: node.id, type: 'node_completed', payload: { output: reason } });
    cancelled ??= { reason, nodeId: node.id };
    return { status: 'succeeded', output: reason };
  };

  /** Pauses at a gate until its decision (or a cancel, which answers undefined). */
  const askForApproval = async (
    node: Extract<WorkflowNode, { kind: 'approval' }>,
  ): Promise<Decision | undefined> => {
    waitingGates.push(node.id);
    showStatus('paused');
    await core.requestApproval({
      ...ref,
      nodeId: node.id,
      message: substitute(node.approval.message, values()),
    });
    await condition(() => cancelled !== undefined || (decisions.length > 0 && waitingGates[0] === node.id));
    waitingGates.splice(waitingGates.indexOf(node.id), 1);
    if (cancelled) return undefined;
    const decision = decisions.shift()!;
    if (decision.kind === 'approve' || node.approval.onReject) {
      if (waitingGates.length > 0) await core.pauseAgain(ref);
      else showStatus('running');
    }
    return decision;
  };

  /** What a loop node needs from this run: its turns, its bash check, its events. */
  const loopRunner = (node: LoopNode): LoopRunner => ({
    turn: (previous, resumeSessionId) => {
      const { prompt, command } = node.loop;
      const text = command !== undefined ? (context.commands[command] ?? '') : (prompt ?? '');
      const prompted = substitute(text, { ...values(), loopPrevOutput: previous });
      return runAssistant(node, prompted, node.outputFormat, resumeSessionId ?? sessionToResume(node));
    },
    check: async (output) => {
      const own = { ...values(), outputs: { ...outputs(), [node.id]: output } };
      const env = bashEnvironment(own, [...upstreamOf(context.definition, node.id), node.id]);
      const { runBashNode } = nodeActivities(node);
      const script = node.loop.untilBash!;
      const ended = await runBashNode({ ...nodeExecution(node), outputFormat: undefined, script, env });
      return ended.status === 'succeeded';
    },
    outputs,
    record: (type, payload, usage) =>
      core.recordNode({
        ...ref,
        nodeId: node.id,
        type,
        payload,
        tokens: usage?.tokens,
        costUsd: usage?.costUsd,
      }),
    cancelled: () => cancelled !== undefined,
  });

  /** What a sub-workflow node needs from this run: the child's record, its end, its events. */
  const subWorkflowRunner = (node: Extract<WorkflowNode, { kind: 'workflow' }>): SubWorkflowRunner => ({
    store: (message) =>
      core.startChildRun({ parentRunId: runId, nodeId: node.id, workflowName: node.workflow, message }),
    outcome: (childRunId) => core.childRunOutcome(childRunId),
    cancelStored: (childRunId, actor, reason) =>
      core.cancelChildRun({ runId: childRunId, actor: actor ?? null, reason }),
    record: async (type, payload, usage) => {
      spent += usage?.costUsd ?? 0;
      await core.recordNode({
        ...ref,
        nodeId: node.id,
        type,
        payload,
        tokens: usage?.tokens,
        costUsd: usage?.costUsd,
      });
    },
    cancelled: () => cancelled,
    input,
    taskQueue: workflowInfo().taskQueue,
    codebaseId: context.codebaseId,
  });

  type WorkNode = Exclude<WorkflowNode, { kind: 'approval' | 'cancel' | 'loop' | 'workflow' }>;

  /** What a for_each node needs from this run: one element's tries, the budget, its events. */
  const fanOutRunner = (node: WorkNode): FanOutRunner => ({
    item: (itemIndex, item) => attempt(node, () => runOnce(node, { item, itemIndex }), itemIndex),
    mayStart: async () => {
      while (overBudget() && !cancelled) await askToSpendMoreOnce();
      return cancelled === undefined;
    },
    outputs,
    record: (type, payload, usage) =>
      core.recordNode({
        ...ref,
        nodeId: node.id,
        type,
        payload,
        tokens: usage?.tokens,
        costUsd: usage?.costUsd,
      }),
  });

  /** What every node activity is told: which node, where, for how long. */
  const nodeExecution = (node: WorkflowNode) => ({
    runId,
    nodeId: node.id,
    conversationId: context.conversationId,
    cwd: context.cwd,
    ...(context.untrusted && { untrusted: true }),
    timeoutMs: node.timeoutMs,
    outputFormat: node.outputFormat,
  });

  /**
   * A node's activities: bash and script ones on this workflow's own queue, assistant ones on the
   * assistant queue (`taskQueue`), where the conversation limit covers them.
   */
  const nodeActivities = (node: WorkflowNode, taskQueue?: string) =>
    proxyActivities<NodeActivities>({
      ...(taskQueue && { taskQueue }),
      startToCloseTimeout: (node.timeoutMs ?? 60 * 60_000) + ACTIVITY_MARGIN_MS,
      heartbeatTimeout: NODE_HEARTBEAT_TIMEOUT,
      // A cancelled run ends only once its processes are gone.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: { maximumAttempts: 3 },
    });

  /** A node's (or a for_each element's) tries, as its retry policy allows: the last one's outcome. */
  const attempt = async (node: WorkNode, once: () => Promise<NodeOutcome>, index?: number) => {
    const attempts = node.retry?.attempts ?? 1;
    let outcome: NodeOutcome | undefined;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      outcome = await once();
      if (outcome.status === 'succeeded' || cancelled) break;
      if (attempt < attempts) {
        await core.recordNode({
          ...ref,
          nodeId: node.id,
          type: 'node_retrying',
          payload: { attempt, error: outcome.error, ...(index !== undefined && { index }) },
        });
        await sleep(node.retry!.delayMs);
      }
    }
    return outcome!;
  };

  const runWithRetries = async (node: WorkNode): Promise<NodeResult> => {
    const outcome = await attempt(node, () => runOnce(node));
    const type = outcome.status === 'succeeded' ? 'node_completed' : 'node_failed';
    await core.recordNode({
      ...ref,
      nodeId: node.id,
      type,
      tokens: outcome.tokens,
      costUsd: outcome.costUsd,
      payload: {
        output: outcome.output,
        error: outcome.error,
        durationMs: outcome.durationMs,
        tokens: outcome.tokens,
        costUsd: outcome.costUsd,
        ...(outcome.sessionId !== undefined && { sessionId: outcome.sessionId }),
      },
    });
    const { status, output, error, sessionId } = outcome;
    return { status, output, error, ...(sessionId !== undefined && { sessionId }) };
  };

  /** The nearest assistant node upstream (depends_on in order, then theirs) that has a session. */
  const nearestUpstreamSession = (node: WorkflowNode): string | undefined => {
    const queue = [...node.dependsOn];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const session = results[id]?.sessionId;
      if (session !== undefined) return session;
      queue.push(...(context.definition.nodes.find((other) => other.id === id)?.dependsOn ?? []));
    }
    return undefined;
  };

  /** The session a node's first turn continues: its `context`, else its persisted one, else none. */
  const sessionToResume = (node: WorkflowNode): string | undefined => {
    if (node.kind !== 'prompt' && node.kind !== 'command' && node.kind !== 'loop') return undefined;
    if (node.context?.from === 'node') return results[node.context.nodeId]?.sessionId;
    if (node.context?.from === 'shared') return nearestUpstreamSession(node);
    return node.persistSession ? prepared.persistedSessions?.[node.id] : undefined;
  };

  const runOnce = (node: WorkNode, item?: { item: unknown; itemIndex: number }): Promise<NodeOutcome> => {
    const base = nodeExecution(node);
    if (node.kind === 'bash' || node.kind === 'script') {
      const env = bashEnvironment(values(item), upstreamOf(context.definition, node.id));
      const { runBashNode, runScriptNode } = nodeActivities(node);
      if (node.kind === 'bash') return runBashNode({ ...base, script: node.bash, env });
      const { script, language, deps } = node;
      return runScriptNode({ ...base, script, language, deps, env });
    }
    const text = node.kind === 'command' ? (context.commands[node.command] ?? '') : node.prompt;
    return runAssistant(node, substitute(text, values(item)), node.outputFormat, sessionToResume(node));
  };

  /** An assistant turn for a node (its prompt, or an approval gate's rework). */
  /**
   * The assistant's usage limit was hit: the node waits on a durable timer until it resets (the
   * run stays running, with its `waitingUntil`), or until the run is cancelled.
   */
  const waitOutUsageLimit = async (node: WorkflowNode, resetAt: string, error: string | undefined) => {
    const waitMs = limitWaitMs(resetAt, Date.now());
    const until = new Date(Date.now() + waitMs).toISOString();
    usageLimitWaits += 1;
    const payload = { reason: 'usage_limit', until, error, wait: usageLimitWaits };
    await core.recordNode({ ...ref, nodeId: node.id, type: 'node_waiting', payload });
    const wakesBefore = wakes.length;
    await condition(() => cancelled !== undefined || wakes.length > wakesBefore, waitMs);
    const wokenBy = wakes.length > wakesBefore ? wakes.at(-1) : undefined;
    if (!cancelled)
      await core.recordNode({
        ...ref,
        nodeId: node.id,
        type: 'node_resumed',
        payload: { reason: 'usage_limit', ...(wokenBy !== undefined && { wokenBy }) },
      });
  };

  /** An assistant turn; one that hits a usage limit is asked again once the limit resets. */
  const runAssistant = async (
    node: WorkflowNode,
    prompt: string,
    outputFormat?: Record<string, unknown>,
    resumeSessionId?: string,
  ): Promise<NodeOutcome> => {
    for (let waits = 0; ; waits += 1) {
      const outcome = await assistantTurn(node, prompt, outputFormat, resumeSessionId);
      spent += outcome.costUsd;
      if (!outcome.usageLimitResetAt || cancelled || waits >= MAX_LIMIT_WAITS) return outcome;
      await waitOutUsageLimit(node, outcome.usageLimitResetAt, outcome.error);
      if (cancelled) return outcome;
    }
  };

  const assistantTurn = (
    node: WorkflowNode,
    prompt: string,
    outputFormat?: Record<string, unknown>,
    resumeSessionId?: string,
  ) => {
    const { runAssistantNode } = nodeActivities(
      node,
      assistantQueueFor(coreQueueOf(workflowInfo().taskQueue)),
    );
    return runAssistantNode({
      ...nodeExecution(node),
      outputFormat,
      prompt,
      codebaseId: context.codebaseId,
      provider: node.provider ?? context.definition.provider,
      model: node.model ?? context.definition.model,
      ...(resumeSessionId !== undefined && { resumeSessionId }),
      ...('assistant' in node && node.assistant && { options: node.assistant }),
    });
  };

  const launch = (node: WorkflowNode) => {
    running.add(node.id);
    states[node.id] = 'running';
    void nodeScope
      .run(() => runNode(node))
      .catch((error: unknown) => {
        if (!isCancellation(error)) {
          results[node.id] = {
            status: 'failed',
            error: error instanceof Error ? error.message : String(error),
          };
        }
        states[node.id] = 'failed';
      })
      .finally(() => {
        running.delete(node.id);
        endedCount += 1;
      });
  };

  for (;;) {
    if (cancelled) break;
    // Counted before this round's awaits, so a node ending meanwhile still wakes the loop.
    const endedBefore = endedCount;
    const ready = readyNodes(context.definition, states, outputs());
    for (const skip of ready.skip) {
      states[skip.id] = 'skipped';
      results[skip.id] = { status: 'skipped' };
      await core.recordNode({
        ...ref,
        nodeId: skip.id,
        type: 'node_skipped',
        payload: { reason: skip.reason },
      });
    }
    const byId = new Map(context.definition.nodes.map((node) => [node.id, node]));
    if (ready.start.length > 0 && overBudget()) {
      await askToSpendMoreOnce();
      continue;
    }
    for (const id of ready.start) {
      if (running.size >= maxParallel) break;
      launch(byId.get(id)!);
    }
    if (running.size === 0 && ready.start.length === 0 && ready.skip.length === 0) break;
    if (ready.skip.length > 0 && running.size === 0) continue;
    await condition(() => endedCount > endedBefore || cancelled !== undefined);
  }

  if (cancelled) {
    nodeScope.cancel();
    await condition(() => running.size === 0);
    showStatus('cancelled');
    await core.finishRun({
      ...ref,
      end: 'cancelled',
      actor: cancelled.actor,
      payload: { reason: cancelled.reason, ...(cancelled.nodeId && { nodeId: cancelled.nodeId }) },
    });
    return;
  }
  const failedNode = unconsumedFailure(context, results);
  showStatus(failedNode ? 'failed' : 'completed');
  if (failedNode) {
    await core.finishRun({
      ...ref,
      end: 'failed',
      error: `node ${failedNode} failed: ${results[failedNode]!.error ?? 'no reason given'}`,
    });
  } else {
    await core.finishRun({ ...ref, end: 'completed' });
  }
}

/**
 * The first failed node whose failure nothing downstream absorbed: a run fails unless every
 * failure fed a node that still succeeded (an `all_done` or `one_success` node).
 */
function unconsumedFailure(context: RunContext, results: Record<string, NodeResult>): string | undefined {
  for (const node of context.definition.nodes) {
    if (results[node.id]?.status !== 'failed') continue;
    const absorbed = context.definition.nodes.some(
      (other) => other.dependsOn.includes(node.id) && results[other.id]?.status === 'succeeded',
    );
    if (!absorbed) return node.id;
  }
  return undefined;
}
