import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import { waitForRunEnd } from '../../support/run-helpers.js';
import {
  eventsByNode,
  startWorkflowRunHarness,
  type Run,
  type RunEvent,
  type WorkflowRunHarness,
} from '../../support/workflow-runs.js';

// Re-run (POST /api/workflows/runs/{id}/rerun): a new run of an ended run's workflow, with its
// message and inputs, in its conversation; real Temporal, git and database.

const GREET = `name: greet
inputs:
  who:
    required: true
  mood:
    default: calm
nodes:
  - id: say
    bash: |
      echo "hello $INPUT_WHO ($INPUT_MOOD): $ARGUMENTS"
`;

const GATED = `name: gated
nodes:
  - id: gate
    approval:
      message: Go?
`;

interface Problem {
  code: string;
  detail: string;
  currentState?: string;
}

for (const kind of databaseKinds()) {
  describe(`re-running a run (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/greet.yaml': GREET,
        '.cairn/workflows/gated.yaml': GATED,
      });
    });

    after(async () => harness?.close());

    const rerun = (runId: string, key?: string) =>
      fetch(`${harness.app.url}/api/workflows/runs/${runId}/rerun`, {
        method: 'POST',
        headers: { 'X-Forwarded-User': 'reviewer', ...(key && { 'Idempotency-Key': key }) },
      });

    it('starts the same workflow with the same message and inputs in the same conversation, answering like a start', async () => {
      const conversation = await harness.conversation();
      const first = await harness.runToEnd('greet', 'the team', {
        conversation,
        body: { inputs: { who: 'ada' } },
      });
      expect(first.run.status).to.equal('completed');

      const answer = await rerun(first.run.runId);
      expect(answer.status).to.equal(202);
      const again = (await answer.json()) as Run & { workflowName: string; message: string };
      expect(answer.headers.get('location')).to.equal(`/api/workflows/runs/${again.runId}`);
      expect(again.runId).not.to.equal(first.run.runId);
      expect(again).to.include({
        workflowName: 'greet',
        message: 'the team',
        conversationId: first.run.conversationId,
      });
      expect(again.inputs).to.deep.equal({ who: 'ada', mood: 'calm' });

      await waitForRunEnd(conversation.stream, again.runId, 120_000);
      const detail = await harness.call<{ run: Run; events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${again.runId}`,
      );
      expect(detail.body.run.status).to.equal('completed');
      expect(eventsByNode(detail.body.events, 'node_completed').say!.output).to.equal(
        'hello ada (calm): the team',
      );
      // The ended run stays as it ended.
      const original = await harness.call<{ run: Run }>('GET', `/api/workflows/runs/${first.run.runId}`);
      expect(original.body.run.status).to.equal('completed');
    });

    it('honours Idempotency-Key: a repeat answers the same new run and starts no other', async () => {
      const conversation = await harness.conversation();
      const { run } = await harness.runToEnd('greet', 'once', {
        conversation,
        body: { inputs: { who: 'bo' } },
      });
      const one = await rerun(run.runId, 'rerun-once');
      const two = await rerun(run.runId, 'rerun-once');
      expect([one.status, two.status]).to.deep.equal([202, 202]);
      const [a, b] = [(await one.json()) as Run, (await two.json()) as Run];
      expect(b.runId).to.equal(a.runId);
      await waitForRunEnd(conversation.stream, a.runId, 120_000);
      const runs = await harness.call<{ items: Run[] }>(
        'GET',
        `/api/workflows/runs?conversationId=${conversation.id}`,
      );
      expect(runs.body.items.map((item) => item.runId).sort()).to.deep.equal([run.runId, a.runId].sort());
    });

    it('refuses a run that has not ended (409 with its state), an unknown run (404), and a workflow whose inputs changed (409)', async () => {
      const conversation = await harness.conversation();
      const started = await harness.call<Run>('POST', '/api/workflows/gated/run', {
        message: 'wait',
        conversationId: conversation.id,
      });
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === started.body.runId,
        60_000,
      );
      const paused = await rerun(started.body.runId);
      expect(paused.status).to.equal(409);
      const refusal = (await paused.json()) as Problem;
      expect(refusal).to.include({ code: 'conflict', currentState: 'paused' });
      expect(refusal.detail).to.include(
        're-run needs a run that is completed or failed or cancelled or abandoned',
      );

      const unknown = await rerun('00000000-0000-4000-8000-000000000000');
      expect(unknown.status).to.equal(404);

      const { run } = await harness.runToEnd('greet', 'before', { body: { inputs: { who: 'cy' } } });
      harness.repo.commit({
        '.cairn/workflows/greet.yaml': GREET.replace(/ {2}mood:\n {4}default: calm\n/, ''),
      });
      const changed = await rerun(run.runId);
      expect(changed.status).to.equal(409);
      const why = (await changed.json()) as Problem;
      expect(why.code).to.equal('workflow_changed');
      expect(why.detail).to.include(`Cannot re-run run ${run.runId}`);
    });
  });
}
