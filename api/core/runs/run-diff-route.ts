import { ComponentRef, defineRoute, problemResponse, Type } from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { getRunDiff } from '../../../services/runs/run-diff.js';
import { RunDiff } from './run-view.js';

export function runDiffRoute(context: ServiceContext) {
  return defineRoute({
    method: 'GET',
    path: '/api/workflows/runs/{runId}/diff',
    operationId: 'getRunDiff',
    summary:
      "A run's changes against its base branch: commits, uncommitted and new files, from the merge-base",
    tags: ['runs'],
    params: Type.Object({ runId: Type.String({ minLength: 1, maxLength: 64 }) }),
    responses: {
      200: { description: 'the changes', schema: ComponentRef('RunDiff', RunDiff) },
      409: problemResponse(
        'run_has_no_worktree: the run has no worktree of its own (not started, isolation: none, no codebase, no base branch); worktree_removed: its worktree was cleaned up; base_branch_missing: its base branch is gone',
      ),
    },
    handler: async ({ params }) => ({ body: await getRunDiff(context, params.runId) }),
  });
}
