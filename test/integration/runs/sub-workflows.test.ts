import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseKinds } from '../../support/databases.js';
import {
  eventsByNode as ended,
  startWorkflowRunHarness,
  type Run,
  type RunEvent,
  type WorkflowRunHarness,
} from '../../support/workflow-runs.js';

// Issue 18's sub-workflows: child runs as Temporal child workflows, with real Temporal, git and
// the fake assistant.

const PARENT = `name: parent
nodes:
  - id: prepare
    bash: echo "from the parent" > parent.txt && echo prepared
  - id: child
    depends_on: [prepare]
    workflow: child
    message: check $prepare.output
  - id: after
    depends_on: [child]
    bash: echo "child said $CHILD_OUTPUT"
`;

/** Reads the parent's file (it works in the parent's folder) and its message, then answers. */
const CHILD = `name: child
nodes:
  - id: look
    bash: |
      cat parent.txt && echo "told: $ARGUMENTS"
  - id: answer
    depends_on: [look]
    prompt: "[fake:reply child done]"
`;

const BROKEN_PARENT = `name: broken-parent
nodes:
  - id: call
    workflow: broken
  - id: cleanup
    depends_on: [call]
    trigger_rule: all_done
    bash: echo cleaned
`;

const BROKEN = `name: broken
nodes:
  - id: boom
    bash: echo no >&2 && exit 4
`;

const GATED_PARENT = `name: gated-parent
nodes:
  - id: call
    workflow: gated-child
`;

const GATED_CHILD = `name: gated-child
nodes:
  - id: gate
    approval:
      message: wait here
`;

/** A chain of seven workflows, each running the next: the sixth level is refused. */
const chain = Object.fromEntries(
  Array.from({ length: 7 }, (_, level) => [
    `.cairn/workflows/level-${level}.yaml`,
    level === 6
      ? `name: level-6\nnodes:\n  - id: bottom\n    bash: echo bottom\n`
      : `name: level-${level}\nnodes:\n  - id: down\n    workflow: level-${level + 1}\n`,
  ]),
);

interface Detail {
  run: Run & { parentRunId: string | null; parentNodeId: string | null; totalCostUsd: number };
  events: RunEvent[];
  children: { runId: string; workflowName: string; status: string; nodeId: string | null }[];
}

for (const kind of databaseKinds()) {
  describe(`workflow language: sub-workflows (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    const detail = async (runId: string) =>
      (await harness.call<Detail>('GET', `/api/workflows/runs/${runId}`)).body;
    const waitForStatus = async (runId: string, status: string) => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100))
        if ((await detail(runId)).run.status === status) return;
      throw new Error(`run ${runId} never became ${status}: ${JSON.stringify((await detail(runId)).run)}`);
    };
    /** Starts a gated parent and answers it with its child once the child waits at its gate. */
    const gatedFamily = async () => {
      const { id } = await harness.conversation();
      const started = await harness.call<Run>('POST', '/api/workflows/gated-parent/run', {
        message: 'go',
        conversationId: id,
      });
      expect(started.status).to.equal(202);
      const parentId = started.body.runId;
      let children: Detail['children'] = [];
      for (const deadline = Date.now() + 60_000; children.length === 0; await sleep(100)) {
        if (Date.now() > deadline) throw new Error('the child run was never started');
        children = (await detail(parentId)).children;
      }
      await waitForStatus(children[0]!.runId, 'paused');
      return { parentId, childId: children[0]!.runId };
    };

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/parent.yaml': PARENT,
        '.cairn/workflows/child.yaml': CHILD,
        '.cairn/workflows/broken-parent.yaml': BROKEN_PARENT,
        '.cairn/workflows/broken.yaml': BROKEN,
        '.cairn/workflows/gated-parent.yaml': GATED_PARENT,
        '.cairn/workflows/gated-child.yaml': GATED_CHILD,
        '.cairn/workflows/ping.yaml': 'name: ping\nnodes:\n  - id: a\n    workflow: pong\n',
        '.cairn/workflows/pong.yaml': 'name: pong\nnodes:\n  - id: b\n    workflow: ping\n',
        '.cairn/workflows/orphan.yaml': 'name: orphan\nnodes:\n  - id: a\n    workflow: nowhere\n',
        ...chain,
      });
    });

    after(() => harness.close());

    it("runs the child in the parent's folder with its message, links both ways, and passes its output on", async () => {
      const { run, events } = await harness.runToEnd('parent', 'ship it');
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const parent = await detail(run.runId);
      expect(parent.children).to.have.length(1);
      const [child] = parent.children;
      expect(child).to.deep.include({ workflowName: 'child', status: 'completed', nodeId: 'child' });
      const started = events.find((e) => e.type === 'sub_workflow_started')!;
      expect(started).to.deep.include({ nodeId: 'child' });
      expect(started.payload).to.deep.equal({ childRunId: child!.runId, workflowName: 'child' });

      const own = await detail(child!.runId);
      expect(own.run).to.include({
        parentRunId: run.runId,
        parentNodeId: 'child',
        message: 'check prepared',
      });
      expect(ended(own.events, 'node_completed').look!.output).to.equal(
        'from the parent\ntold: check prepared',
      );
      const completed = ended(events, 'node_completed');
      expect(completed.child!.output).to.equal('child done');
      expect(completed.child!.childRunId).to.equal(child!.runId);
      expect(completed.after!.output).to.equal('child said child done');
      // The parent's totals take in what its child cost.
      expect(own.run.totalCostUsd).to.be.above(0);
      expect(parent.run.totalCostUsd).to.be.closeTo(own.run.totalCostUsd, 1e-9);
    });

    it("fails the node when its child fails; the node's trigger rules decide what follows", async () => {
      const { run, events } = await harness.runToEnd('broken-parent', 'go');
      expect(run.status).to.equal('completed');
      const failed = ended(events, 'node_failed');
      expect(failed.call!.error).to.match(
        /^sub-workflow broken \(run [0-9a-f-]+\) ended failed: node boom failed/,
      );
      expect(ended(events, 'node_completed').cleanup!.output).to.equal('cleaned');
      const [child] = (await detail(run.runId)).children;
      expect(child).to.deep.include({ workflowName: 'broken', status: 'failed' });
    });

    it('cancels the child when the parent is cancelled, and ends the parent once the child has stopped', async () => {
      const { parentId, childId } = await gatedFamily();
      const cancelled = await harness.call<Run>('POST', `/api/workflows/runs/${parentId}/cancel`);
      expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
      await waitForStatus(childId, 'cancelled');
      const child = await detail(childId);
      const reason = child.events.find((e) => e.type === 'run_cancelled')!.payload.reason;
      expect(reason).to.match(/^its parent run was cancelled/);
      expect(child.events.filter((e) => e.type === 'run_cancelled')).to.have.length(1);
      await waitForStatus(parentId, 'cancelled');
      const parent = await detail(parentId);
      expect(parent.children[0]).to.deep.include({ runId: childId, status: 'cancelled' });
    });

    it('abandons the child with its parent', async () => {
      const { parentId, childId } = await gatedFamily();
      const abandoned = await harness.call<Run>('POST', `/api/workflows/runs/${parentId}/abandon`);
      expect(abandoned.status, JSON.stringify(abandoned.body)).to.equal(200);
      const child = await detail(childId);
      expect(child.run.status).to.equal('abandoned');
      expect(child.events.filter((e) => e.type === 'run_abandoned')).to.have.length(1);
    });

    it('refuses workflows that run each other or a missing one, naming the chain, before anything runs', async () => {
      const { id } = await harness.conversation();
      const listed = await harness.call<{
        workflows: { workflow: { name: string } }[];
        errors?: { filename: string; error: string }[];
      }>('GET', `/api/workflows?cwd=${encodeURIComponent(harness.repo.path)}`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      const names = listed.body.workflows.map((w) => w.workflow.name);
      expect(names, JSON.stringify(listed.body.errors))
        .to.include('parent')
        .and.not.include.members(['ping', 'pong', 'orphan']);
      const errors = Object.fromEntries((listed.body.errors ?? []).map((e) => [e.filename, e.error]));
      expect(errors['.cairn/workflows/ping.yaml']).to.equal(
        'nodes[0] "a": workflow: "pong" leads back to "ping" (ping -> pong -> ping): a workflow cannot run itself, even through others',
      );
      expect(errors['.cairn/workflows/orphan.yaml']).to.equal(
        'nodes[0] "a": workflow: no workflow named "nowhere"',
      );
      const refused = await harness.call('POST', '/api/workflows/ping/run', {
        message: 'x',
        conversationId: id,
      });
      expect(refused.status).to.equal(404);
      const verdict = await harness.call<{ valid: boolean; errors: string[] }>(
        'POST',
        '/api/workflows/validate',
        {
          definition: { name: 'selfish', nodes: [{ id: 'again', workflow: 'selfish' }] },
        },
      );
      expect(verdict.body).to.deep.equal({
        valid: false,
        errors: ['nodes[0] "again": workflow: a workflow cannot run itself'],
      });
    });

    it('bounds the nesting: a sixth level down fails its node with the reason, and every level fails', async () => {
      const { run, events } = await harness.runToEnd('level-0', 'dig');
      expect(run.status).to.equal('failed');
      expect(ended(events, 'node_failed').down!.error).to.match(/^sub-workflow level-1 .* ended failed/);
      let runId = run.runId;
      for (let level = 1; level <= 5; level += 1) {
        const [child] = (await detail(runId)).children;
        expect(child, `level ${level}`).to.deep.include({ workflowName: `level-${level}`, status: 'failed' });
        runId = child!.runId;
      }
      const deepest = await detail(runId);
      expect(deepest.children).to.deep.equal([]);
      expect(ended(deepest.events, 'node_failed').down!.error).to.equal('Sub-workflows nest at most 5 deep.');
    });
  });
}
