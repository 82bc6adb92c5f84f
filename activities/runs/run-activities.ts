import type { ServiceContext } from '../../services/context.js';
import { prepareRun } from '../../services/runs/prepare-run.js';
import {
  cancelChildRun,
  childRunOutcome,
  startChildRun,
  type ChildRunRequest,
} from '../../services/runs/child-runs.js';
import { withHeartbeats } from '../heartbeats.js';
import {
  beginRun,
  failUnpreparedRun,
  finishRun,
  pauseAgain,
  recordNode,
  requestApproval,
  type NodeRecord,
  type RunRef,
} from '../../services/runs/run-state.js';

/** The run's bookkeeping activities, on the core queue. */
export function createRunActivities(deps: ServiceContext) {
  return {
    // Making a worktree can take a while (a fetch, a large checkout): heartbeats show it is alive.
    prepareRun: (runId: string) => withHeartbeats(() => prepareRun(deps, runId)),
    beginRun: (ref: RunRef) => beginRun(deps, ref),
    requestApproval: (input: RunRef & { nodeId: string; message: string }) => requestApproval(deps, input),
    pauseAgain: (ref: RunRef) => pauseAgain(deps, ref),
    recordNode: (record: NodeRecord) => recordNode(deps, record),
    finishRun: (input: Parameters<typeof finishRun>[1]) => finishRun(deps, input),
    failUnpreparedRun: (input: { runId: string; error: string }) => failUnpreparedRun(deps, input),
    startChildRun: (request: ChildRunRequest) => startChildRun(deps, request),
    childRunOutcome: (runId: string) => childRunOutcome(deps, runId),
    cancelChildRun: (input: Parameters<typeof cancelChildRun>[1]) => cancelChildRun(deps, input),
  };
}

export type RunActivities = ReturnType<typeof createRunActivities>;
