import { expect } from 'chai';
import { allowedOperations, applyRunEvents, emptyRunModel } from '../../../web/src/runs/run-model.js';
import type { WorkflowRunEvent } from '../../../web/src/api/types.js';

const event = (
  id: number,
  type: string,
  nodeId: string | null,
  payload: Record<string, unknown> = {},
): WorkflowRunEvent => ({
  id,
  type,
  nodeId,
  actor: null,
  payload: payload as WorkflowRunEvent['payload'],
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('the run page model (web/src/runs/run-model.ts)', () => {
  const definition = [{ id: 'gate' }, { id: 'after', depends_on: ['gate'] }];

  it('folds node states, output, log lines, time and usage; a replayed event counts once', () => {
    const events = [
      event(1, 'node_started', 'gate', { kind: 'approval' }),
      event(2, 'approval_requested', 'gate', { message: 'Ship it?' }),
      event(3, 'approval_received', null, { decision: 'approve', comment: 'yes' }),
      event(4, 'node_completed', 'gate', { output: 'yes' }),
      event(5, 'node_started', 'after', { kind: 'bash' }),
      event(6, 'node_log', 'after', { attempt: 1, stream: 'stderr', lines: ['to stderr'] }),
      event(7, 'node_completed', 'after', {
        output: 'approved with yes\n',
        durationMs: 120,
        tokens: 0,
        costUsd: 0,
      }),
    ];
    const once = applyRunEvents(emptyRunModel('r', 'gated', definition), events);
    const twice = applyRunEvents(once, events);
    expect(twice.nodes).to.deep.equal(once.nodes);
    const [gate, after] = twice.nodes;
    expect(gate).to.include({ id: 'gate', state: 'completed', output: 'yes' });
    expect(after).to.deep.include({
      state: 'completed',
      durationMs: 120,
      dependsOn: ['gate'],
      output: 'approved with yes\n',
    });
    expect(after!.logs).to.deep.equal([{ stream: 'stderr', line: 'to stderr' }]);
    expect(twice.view.gates[0]).to.deep.include({ nodeId: 'gate', message: 'Ship it?' });
  });

  it("shows a for_each node's elements in order, each with its state, output or error", () => {
    const model = applyRunEvents(emptyRunModel('r', 'fan', [{ id: 'each' }]), [
      event(1, 'node_started', 'each', { kind: 'bash' }),
      event(2, 'node_item_started', 'each', { index: 1, item: { file: 'b.ts' } }),
      event(3, 'node_item_started', 'each', { index: 0, item: 'a.ts' }),
      event(4, 'node_item_failed', 'each', { index: 1, error: 'exit 2' }),
      event(5, 'node_item_completed', 'each', { index: 0, output: 'ok a' }),
      event(6, 'node_item_started', 'each', { index: 2, item: 'c.ts' }),
    ]);
    const items = model.nodes[0]!.items!;
    expect(items.map((item) => [item.index, item.state])).to.deep.equal([
      [0, 'completed'],
      [1, 'failed'],
      [2, 'running'],
    ]);
    expect(items[0]).to.include({ item: 'a.ts', output: 'ok a' });
    expect(items[1]).to.include({ error: 'exit 2' });
    expect(JSON.parse(items[1]!.item!)).to.deep.equal({ file: 'b.ts' });
    const ended = applyRunEvents(model, [
      event(7, 'node_completed', 'each', { output: ['ok a', null, 'ok c'] }),
    ]);
    expect(JSON.parse(ended.nodes[0]!.output!)).to.deep.equal(['ok a', null, 'ok c']);
  });

  it('leaves nodes that have not started pending, and adds nodes the definition did not name', () => {
    const model = applyRunEvents(emptyRunModel('r', 'gated', definition), [
      event(1, 'node_started', 'extra'),
    ]);
    expect(model.nodes.map((node) => [node.id, node.state])).to.deep.equal([
      ['gate', 'pending'],
      ['after', 'pending'],
      ['extra', 'running'],
    ]);
  });

  it('offers only the operations the run state machine allows', () => {
    expect(allowedOperations('paused')).to.deep.equal(['approve', 'reject', 'cancel', 'abandon']);
    expect(allowedOperations('running')).to.deep.equal(['cancel', 'abandon']);
    expect(allowedOperations('failed')).to.deep.equal(['resume', 'rerun', 'delete']);
    expect(allowedOperations('completed')).to.deep.equal(['rerun', 'delete']);
    expect(allowedOperations('cancelled')).to.deep.equal(['rerun', 'delete']);
  });
});
