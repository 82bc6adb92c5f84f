import type { NodeOutcome, NodeResult } from '../../domain/runs/run-contract.js';
import { MAX_FAN_OUT_ITEMS, resolveOutput, type FanOut } from '../../domain/workflow-definitions/index.js';

/** What a for_each node needs from the run it is part of (workflow code: deterministic, no I/O). */
export interface FanOutRunner {
  /** One element's run of the node (its tries included), with `$ITEM` and `$ITEM_INDEX` set. */
  item(index: number, item: unknown): Promise<NodeOutcome>;
  /** Whether another element may start: false once the run is cancelled (or over budget and refused). */
  mayStart(): Promise<boolean>;
  outputs(): Record<string, unknown>;
  record(
    type: 'node_item_started' | 'node_item_completed' | 'node_item_failed' | 'node_completed' | 'node_failed',
    payload: Record<string, unknown>,
    usage?: { tokens: number; costUsd: number },
  ): Promise<void>;
}

/** Events show an element whole up to this many characters of its JSON text. */
const MAX_ITEM_TEXT = 500;

/** The list to run over: a list value, or text holding a JSON list; otherwise why not. */
export function fanOutList(value: unknown, source: string): { items: unknown[] } | { error: string } {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value) as unknown;
    } catch {
      list = value;
    }
  }
  if (!Array.isArray(list)) return { error: `for_each: ${source} is not a list (it is ${kindOf(value)})` };
  if (list.length > MAX_FAN_OUT_ITEMS)
    return { error: `for_each: ${source} has ${list.length} elements; at most ${MAX_FAN_OUT_ITEMS} are run` };
  return { items: list };
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

function shown(item: unknown): unknown {
  const text = typeof item === 'string' ? item : (JSON.stringify(item) ?? '');
  return text.length <= MAX_ITEM_TEXT ? item : `${text.slice(0, MAX_ITEM_TEXT)}…`;
}

/**
 * Runs a for_each node: one instance per element, at most `concurrency` at a time, started in
 * the list's order. Each element is recorded as it starts and ends (`node_item_*`, with its output
 * or error); the node's output is the list of their outputs in the list's order. Every element
 * runs even when one fails; the node then fails, naming the failed elements.
 */
export async function runFanOut(fanOut: FanOut, runner: FanOutRunner): Promise<NodeResult> {
  const list = fanOutList(resolveOutput(runner.outputs(), fanOut.nodeId, fanOut.path), fanOut.source);
  if ('error' in list) {
    await runner.record('node_failed', { error: list.error });
    return { status: 'failed', error: list.error };
  }
  const { items } = list;
  const outputs: unknown[] = new Array(items.length).fill(null);
  const failed: number[] = [];
  const total = { tokens: 0, costUsd: 0 };
  let next = 0;
  let stopped = false;

  const lane = async () => {
    while (next < items.length && !stopped) {
      if (!(await runner.mayStart())) {
        stopped = true;
        return;
      }
      // Taken after the wait: another lane may have taken the next element meanwhile.
      if (next >= items.length) return;
      const index = next++;
      const item = items[index];
      await runner.record('node_item_started', { index, item: shown(item) });
      const outcome = await runner.item(index, item);
      const usage = { tokens: outcome.tokens, costUsd: outcome.costUsd };
      total.tokens += usage.tokens;
      total.costUsd += usage.costUsd;
      if (outcome.status === 'succeeded') {
        outputs[index] = outcome.output ?? '';
        await runner.record(
          'node_item_completed',
          { index, output: outcome.output, durationMs: outcome.durationMs, ...usage },
          usage,
        );
      } else {
        failed.push(index);
        await runner.record(
          'node_item_failed',
          { index, error: outcome.error, durationMs: outcome.durationMs, ...usage },
          usage,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(fanOut.concurrency, items.length) }, lane));

  if (stopped) return { status: 'failed', error: 'the run was cancelled' };
  if (failed.length > 0) {
    failed.sort((a, b) => a - b);
    const error = `${failed.length} of ${items.length} elements failed (index ${failed.join(', ')})`;
    await runner.record('node_failed', { error, output: outputs, items: items.length, ...total });
    return { status: 'failed', error };
  }
  await runner.record('node_completed', { output: outputs, items: items.length, ...total });
  return { status: 'succeeded', output: outputs };
}
