import { expect } from 'chai';
import { assistantQueueFor, coreQueueOf, runQueueFor } from '../../../domain/task-queues.js';

describe('task queue families', () => {
  it('derives the run and assistant queues from the core queue', () => {
    expect(runQueueFor('cairn-core')).to.equal('cairn-core-runs');
    expect(assistantQueueFor('cairn-core')).to.equal('cairn-core-assistant');
  });

  it('finds the core queue from a run queue, and from the core queue itself (older runs live there)', () => {
    expect(coreQueueOf(runQueueFor('test-1'))).to.equal('test-1');
    expect(coreQueueOf('test-1')).to.equal('test-1');
    expect(assistantQueueFor(coreQueueOf(runQueueFor('cairn-core')))).to.equal('cairn-core-assistant');
  });
});
