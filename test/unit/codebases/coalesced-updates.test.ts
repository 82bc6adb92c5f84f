import { expect } from 'chai';
import { CoalescedUpdates } from '../../../services/codebases/coalesced-updates.js';

/** An update that ends when told to, and says when it started. */
function controlledUpdates() {
  const started: Array<{ index: number; finish: () => void }> = [];
  const update = () =>
    new Promise<void>((resolve) => started.push({ index: started.length, finish: resolve }));
  return { started, update };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesced updates of one checkout', () => {
  it('starts one update for a first caller, and a fresh one for a caller after it ended', async () => {
    const updates = new CoalescedUpdates();
    const { started, update } = controlledUpdates();
    const first = updates.run('repo', update);
    expect(started).to.have.length(1);
    started[0]!.finish();
    await first;
    const later = updates.run('repo', update);
    expect(started).to.have.length(2);
    started[1]!.finish();
    await later;
  });

  it('gives callers arriving during an update one shared update that starts after it', async () => {
    const updates = new CoalescedUpdates();
    const { started, update } = controlledUpdates();
    const order: string[] = [];
    const first = updates.run('repo', update).then(() => order.push('first'));
    // Arriving while the first runs: it may have fetched before they asked, so they wait for the next.
    const second = updates.run('repo', update).then(() => order.push('second'));
    const third = updates.run('repo', update).then(() => order.push('third'));
    await settled();
    expect(started, 'the next update waits for the running one').to.have.length(1);
    started[0]!.finish();
    await first;
    await settled();
    expect(started, 'one update for both waiting callers').to.have.length(2);
    expect(order).to.deep.equal(['first']);
    // A caller arriving during the second update waits for a third.
    const fourth = updates.run('repo', update).then(() => order.push('fourth'));
    started[1]!.finish();
    await Promise.all([second, third]);
    await settled();
    expect(started).to.have.length(3);
    expect(order).to.deep.equal(['first', 'second', 'third']);
    started[2]!.finish();
    await fourth;
    expect(order).to.deep.equal(['first', 'second', 'third', 'fourth']);
  });

  it('keeps the updates of different checkouts apart', async () => {
    const updates = new CoalescedUpdates();
    const { started, update } = controlledUpdates();
    const a = updates.run('a', update);
    const b = updates.run('b', update);
    expect(started).to.have.length(2);
    started.forEach((run) => run.finish());
    await Promise.all([a, b]);
  });
});
