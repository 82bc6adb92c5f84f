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
  type VariableValues,
  type WorkflowNode,
} from '../../domain/workflow-definitions/index.js';
import type { RunActivities } from '../../activities/runs/run-activities.js';
import type { NodeActivities } from '../../activities/runs/node-activities.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../domain/heartbeats.js';
import { approveSignal, cancelSignal, rejectSignal } from './run-messages.js';

const DEFAULT_PARALLEL_NODES = 4;
/** Beyond a node's own timeout: time for the activity to notice, kill its process and report. */
const ACTIVITY_MARGIN_MS = 60_000;
/**
 * Short, because a cancellation reaches an activity only with the reply to one of its heartbeats
 * (sent at most every 80% of this): a cancelled run's processes stop within seconds.
 */
const NODE_HEARTBEAT_TIMEOUT = '10 seconds';

type Decision = { kind: 'approve'; signal: ApproveSignal } | { kind: 'reject'; signal: RejectSignal };

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

  let cancelled: { actor: string; reason: string } | undefined;
  const decisions: Decision[] = [];
  setHandler(cancelSignal, (signal) => {
    cancelled ??= { actor: signal.actor, reason: signal.reason ?? 'cancelled' };
  });
  setHandler(approveSignal, (signal) => void decisions.push({ kind: 'approve', signal }));
  setHandler(rejectSignal, (signal) => void decisions.push({ kind: 'reject', signal }));

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
  const values = (): VariableValues => ({
    arguments: context.message,
    baseBranch: context.baseBranch,
    docsDir: context.docsDir,
    artifactsDir: context.artifactsDir,
    runId,
    scriptsDir: context.scriptsDir,
    outputs: outputs(),
  });

  const waitingGates: string[] = [];
  let endedCount = 0;
  const running = new Set<string>();
  const maxParallel = input.maxParallelNodes ?? DEFAULT_PARALLEL_NODES;
  const nodeScope = new CancellationScope();

  const runNode = async (node: WorkflowNode) => {
    await core.recordNode({ ...ref, nodeId: node.id, type: 'node_started', payload: { kind: node.kind } });
    const result = node.kind === 'approval' ? await awaitApproval(node) : await runWithRetries(node);
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

  const runWithRetries = async (node: Exclude<WorkflowNode, { kind: 'approval' }>): Promise<NodeResult> => {
    const attempts = node.retry?.attempts ?? 1;
    let outcome: NodeOutcome | undefined;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      outcome = await runOnce(node);
      if (outcome.status === 'succeeded' || cancelled) break;
      if (attempt < attempts) {
        await core.recordNode({
          ...ref,
          nodeId: node.id,
          type: 'node_retrying',
          payload: { attempt, error: outcome.error },
        });
        await sleep(node.retry!.delayMs);
      }
    }
    const type = outcome!.status === 'succeeded' ? 'node_completed' : 'node_failed';
    await core.recordNode({
      ...ref,
      nodeId: node.id,
      type,
      tokens: outcome!.tokens,
      costUsd: outcome!.costUsd,
      payload: {
        output: outcome!.output,
        error: outcome!.error,
        durationMs: outcome!.durationMs,
        tokens: outcome!.tokens,
        costUsd: outcome!.costUsd,
      },
    });
    return { status: outcome!.status, output: outcome!.output, error: outcome!.error };
  };

  const runOnce = (node: Exclude<WorkflowNode, { kind: 'approval' }>): Promise<NodeOutcome> => {
    const base = {
      runId,
      nodeId: node.id,
      conversationId: context.conversationId,
      cwd: context.cwd,
      timeoutMs: node.timeoutMs,
      outputFormat: node.outputFormat,
    };
    const timeout = (node.timeoutMs ?? 60 * 60_000) + ACTIVITY_MARGIN_MS;
    if (node.kind === 'bash') {
      const upstream = upstreamOf(context.definition, node.id);
      const { runBashNode } = proxyActivities<NodeActivities>({
        startToCloseTimeout: timeout,
        heartbeatTimeout: NODE_HEARTBEAT_TIMEOUT,
        // A cancelled run ends only once its processes are gone.
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        retry: { maximumAttempts: 3 },
      });
      return runBashNode({ ...base, script: node.bash, env: bashEnvironment(values(), upstream) });
    }
    const text = node.kind === 'command' ? (context.commands[node.command] ?? '') : node.prompt;
    return runAssistant(node, substitute(text, values()), node.outputFormat);
  };

  /** An assistant turn for a node (its prompt, or an approval gate's rework). */
  const runAssistant = (node: WorkflowNode, prompt: string, outputFormat?: Record<string, unknown>) => {
    const { runAssistantNode } = proxyActivities<NodeActivities>({
      taskQueue: assistantQueueFor(coreQueueOf(workflowInfo().taskQueue)),
      startToCloseTimeout: (node.timeoutMs ?? 60 * 60_000) + ACTIVITY_MARGIN_MS,
      heartbeatTimeout: NODE_HEARTBEAT_TIMEOUT,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: { maximumAttempts: 3 },
    });
    return runAssistantNode({
      runId,
      nodeId: node.id,
      conversationId: context.conversationId,
      cwd: context.cwd,
      timeoutMs: node.timeoutMs,
      outputFormat,
      prompt,
      codebaseId: context.codebaseId,
      provider: node.provider ?? context.definition.provider,
      model: node.model ?? context.definition.model,
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
      payload: { reason: cancelled.reason },
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
