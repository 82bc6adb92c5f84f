import { expect } from 'chai';
import type { WorkflowRun } from '../../../db/repositories/workflow-runs.js';
import { checkRunEnd } from '../../../services/codehost/run-check.js';
import { commitStatusState } from '../../../infra/codehost/gitlab-commit-statuses.js';
import { RUN_STATUSES } from '../../../domain/runs/run-status.js';

function run(status: WorkflowRun['status'], extra: Partial<WorkflowRun> = {}): WorkflowRun {
  return {
    id: 'run-1',
    workflowName: 'review',
    conversationId: null,
    codebaseId: null,
    isolationEnvironmentId: null,
    workerPlatformId: null,
    status,
    message: null,
    inputs: null,
    definition: {},
    currentNode: null,
    error: null,
    totalTokens: 0,
    totalCostUsd: 0,
    waitingUntil: null,
    parentRunId: null,
    parentNodeId: null,
    scheduleId: null,
    startedAt: null,
    completedAt: null,
    createdAt: '2026-11-27T10:00:00Z',
    updatedAt: '2026-11-27T10:00:00Z',
    ...extra,
  };
}

describe("checkRunEnd: a run's outcome as its check run's conclusion", () => {
  it('maps each ending to a conclusion GitHub takes', () => {
    expect(checkRunEnd(run('completed')).conclusion).to.equal('success');
    expect(checkRunEnd(run('failed')).conclusion).to.equal('failure');
    expect(checkRunEnd(run('cancelled')).conclusion).to.equal('cancelled');
    expect(checkRunEnd(run('abandoned')).conclusion).to.equal('cancelled');
    // A run still under way when its following ended is neither passed nor failed.
    expect(checkRunEnd(run('paused')).conclusion).to.equal('neutral');
  });

  it("says what happened in a short summary: the run, its cost, a failed run's error quoted", () => {
    const end = checkRunEnd(run('failed', { totalCostUsd: 0.125, error: 'node fail exited 3\nnope' }));
    expect(end.title).to.equal('review failed');
    expect(end.summary).to.equal('Workflow run `run-1` failed. Cost: $0.13.\n\n> node fail exited 3\n> nope');
    expect(checkRunEnd(run('completed')).summary).to.equal('Workflow run `run-1` completed.');
  });
});

describe("commitStatusState: a run's outcome as the state of its GitLab commit status", () => {
  it('maps each run status to a state GitLab can reach from running', () => {
    const states = Object.fromEntries(
      RUN_STATUSES.map((status) => [status, commitStatusState(checkRunEnd(run(status)).conclusion)]),
    );
    expect(states).to.deep.equal({
      completed: 'success',
      failed: 'failed',
      cancelled: 'canceled',
      abandoned: 'canceled',
      // Still under way when its following ended (a cancel the run had not taken yet): GitLab
      // has no neutral, and its skipped cannot follow running.
      pending: 'canceled',
      running: 'canceled',
      paused: 'canceled',
    });
  });
});
