import type { NodeOutcome, NodeResult } from '../../domain/runs/run-contract.js';
import {
  evaluateCondition,
  loopSignalReached,
  toText,
  withoutPromiseTags,
  type LoopNode,
} from '../../domain/workflow-definitions/index.js';

/** What a loop needs from the run it is part of (workflow code: deterministic, no I/O here). */
export interface LoopRunner {
  /**
   * One assistant turn of the loop's prompt, `$LOOP_PREV_OUTPUT` being `previousOutput`; without a
   * session to resume, the node's own `context` or persisted session (if any) is continued.
   */
  turn(previousOutput: string, resumeSessionId: string | undefined): Promise<NodeOutcome>;
  /** The until_bash check, with the loop's latest output as `<ID>_OUTPUT`: whether it exited 0. */
  check(output: unknown): Promise<boolean>;
  /** Outputs of the ended nodes, by id. */
  outputs(): Record<string, unknown>;
  record(
    type: 'node_iteration' | 'node_completed' | 'node_failed',
    payload: Record<string, unknown>,
    usage?: { tokens: number; costUsd: number },
  ): Promise<void>;
  cancelled(): boolean;
}

/** Whether the iteration's output ends the loop: the signal, the condition, then the bash check. */
async function done(node: LoopNode, raw: unknown, output: unknown, runner: LoopRunner): Promise<boolean> {
  const { until, untilCondition, untilBash } = node.loop;
  if (until !== undefined && loopSignalReached(toText(raw), until)) return true;
  if (
    untilCondition &&
    evaluateCondition(untilCondition.condition, { ...runner.outputs(), [node.id]: output })
  )
    return true;
  return untilBash !== undefined && (await runner.check(output));
}

/**
 * Runs a loop node: an assistant turn per iteration (a new session each time with fresh_context,
 * else the same one continued), each recorded as `node_iteration` with its output, until the end
 * condition holds (the node succeeds with that output) or max_iterations pass (it fails).
 */
export async function runLoop(node: LoopNode, runner: LoopRunner): Promise<NodeResult> {
  const { maxIterations, freshContext } = node.loop;
  const total = { tokens: 0, costUsd: 0, durationMs: 0 };
  let previous = '';
  let sessionId: string | undefined;
  const fail = async (error: string, iterations: number): Promise<NodeResult> => {
    await runner.record('node_failed', { error, iterations, ...total });
    return { status: 'failed', error };
  };
  for (let iteration = 1; iteration <= maxIterations; iteration += 1) {
    if (runner.cancelled()) return { status: 'failed', error: 'the run was cancelled' };
    const outcome = await runner.turn(previous, freshContext ? undefined : sessionId);
    total.tokens += outcome.tokens;
    total.costUsd += outcome.costUsd;
    total.durationMs += outcome.durationMs;
    const usage = { tokens: outcome.tokens, costUsd: outcome.costUsd };
    if (outcome.status === 'failed') {
      await runner.record('node_iteration', { iteration, error: outcome.error, done: false }, usage);
      return fail(`iteration ${iteration} failed: ${outcome.error ?? 'no reason given'}`, iteration);
    }
    sessionId = outcome.sessionId ?? sessionId;
    const output = typeof outcome.output === 'string' ? withoutPromiseTags(outcome.output) : outcome.output;
    const finished = await done(node, outcome.output, output, runner);
    await runner.record(
      'node_iteration',
      { iteration, output, done: finished, durationMs: outcome.durationMs, ...usage },
      usage,
    );
    if (finished) {
      const session = sessionId !== undefined ? { sessionId } : {};
      await runner.record('node_completed', { output, iterations: iteration, ...total, ...session });
      return { status: 'succeeded', output, ...session };
    }
    previous = toText(output);
  }
  return fail(`the loop did not reach its end condition in ${maxIterations} iterations`, maxIterations);
}
