import { expect } from 'chai';
import { RUN_STATUSES, TERMINAL_RUN_STATUSES, type RunStatus } from '../../../domain/runs/run-status.js';
import {
  allowsRunOperation,
  decideRunOperation,
  RUN_OPERATION_NAMES,
  statesAllowing,
  statusChange,
  type RunOperation,
} from '../../../domain/runs/run-state-machine.js';

/** The states each operation was allowed from before the table, and where it led. */
const TODAY: Record<RunOperation, Partial<Record<RunStatus, string>>> = {
  cancel: { running: 'cancelled', paused: 'cancelled' },
  approve: { paused: 'running' },
  reject: { paused: 'cancelled' },
  rework: { paused: 'running' },
  resume: { failed: 'running' },
  abandon: { pending: 'abandoned', running: 'abandoned', paused: 'abandoned' },
  rerun: { completed: 'completed', failed: 'failed', cancelled: 'cancelled', abandoned: 'abandoned' },
  delete: { completed: 'deleted', failed: 'deleted', cancelled: 'deleted', abandoned: 'deleted' },
  begin: { pending: 'running', running: 'running', paused: 'paused' },
  await_approval: { running: 'paused', paused: 'paused' },
  finish_completed: { pending: 'completed', running: 'completed', paused: 'completed' },
  finish_failed: { pending: 'failed', running: 'failed', paused: 'failed' },
  finish_cancelled: { pending: 'cancelled', running: 'cancelled', paused: 'cancelled' },
  reconcile_start: { pending: 'pending' },
  reconcile_fail: { pending: 'failed', running: 'failed', paused: 'failed' },
  reconcile_stop: { cancelled: 'cancelled', abandoned: 'abandoned' },
  codebase_deleted: { pending: 'cancelled', running: 'cancelled', paused: 'cancelled' },
};

describe('the run state machine', () => {
  it('answers every state and operation: the next state, or the reason it is refused', () => {
    expect(RUN_OPERATION_NAMES).to.have.members(Object.keys(TODAY));
    for (const operation of RUN_OPERATION_NAMES) {
      for (const state of RUN_STATUSES) {
        const expected = TODAY[operation][state];
        const decision = decideRunOperation(state, operation);
        expect([operation, state, decision]).to.deep.equal([
          operation,
          state,
          expected === undefined
            ? { allowed: false, reason: decision.allowed ? '' : decision.reason }
            : { allowed: true, to: expected },
        ]);
        if (!decision.allowed) expect(decision.reason).to.match(/ needs a run that is [a-z]+( or [a-z]+)*$/);
      }
    }
  });

  it('gives the reasons the API has always answered its 409s with', () => {
    const reason = (state: RunStatus, operation: RunOperation) => {
      const decision = decideRunOperation(state, operation);
      return decision.allowed ? undefined : decision.reason;
    };
    expect(reason('pending', 'cancel')).to.equal('cancel needs a run that is running or paused');
    expect(reason('running', 'approve')).to.equal('approve needs a run that is paused');
    expect(reason('completed', 'reject')).to.equal('reject needs a run that is paused');
    expect(reason('completed', 'rework')).to.equal('reject needs a run that is paused');
    expect(reason('paused', 'resume')).to.equal('resume needs a run that is failed');
    expect(reason('failed', 'abandon')).to.equal('abandon needs a run that is pending or running or paused');
    expect(reason('running', 'delete')).to.equal(
      'delete needs a run that is completed or failed or cancelled or abandoned',
    );
  });

  it('lets a terminal run only be deleted, or resumed when it failed', () => {
    for (const state of TERMINAL_RUN_STATUSES) {
      const moves = RUN_OPERATION_NAMES.filter((operation) => {
        const decision = decideRunOperation(state, operation);
        return decision.allowed && decision.to !== state;
      });
      expect([state, moves]).to.deep.equal([state, state === 'failed' ? ['resume', 'delete'] : ['delete']]);
    }
  });

  it('never leads back to pending, and deletes only runs that have ended', () => {
    for (const operation of RUN_OPERATION_NAMES) {
      for (const state of RUN_STATUSES) {
        const decision = decideRunOperation(state, operation);
        if (decision.allowed && decision.to === 'pending') expect(state).to.equal('pending');
      }
    }
    expect(statesAllowing('delete')).to.deep.equal([...TERMINAL_RUN_STATUSES]);
    expect(statesAllowing('rerun')).to.deep.equal([...TERMINAL_RUN_STATUSES]);
  });

  it('makes each compare-and-swap from the states whose status moves, to one status', () => {
    expect(statusChange('begin')).to.deep.equal({ from: ['pending'], to: 'running' });
    expect(statusChange('await_approval')).to.deep.equal({ from: ['running'], to: 'paused' });
    expect(statusChange('cancel')).to.deep.equal({ from: ['running', 'paused'], to: 'cancelled' });
    expect(statusChange('finish_failed')).to.deep.equal({
      from: ['pending', 'running', 'paused'],
      to: 'failed',
    });
    for (const operation of ['delete', 'rerun', 'reconcile_start', 'reconcile_stop'] as const)
      expect(() => statusChange(operation), operation).to.throw('is not one status change');
  });

  it('reconciles every run it may start among the runs it may fail', () => {
    expect(statesAllowing('reconcile_fail')).to.include.members(statesAllowing('reconcile_start'));
    expect(allowsRunOperation('cancelled', 'reconcile_fail')).to.equal(false);
  });
});
