import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import { waitForRunEnd } from '../../support/run-helpers.js';
import {
  eventsByNode as ended,
  startWorkflowRunHarness,
  type Run,
  type RunEvent,
  type WorkflowRunHarness,
} from '../../support/workflow-runs.js';

// Issue 18's nodes run to completion with real Temporal, git, node, python3 and the fake assistant.

/** Archon's form: script nodes with runtime bun and uv, a when over their output, a cancel node. */
const TRIAGE = `name: triage
nodes:
  - id: classify
    runtime: bun
    script: |
      const words = process.env.ARGUMENTS.trim().split(/\\s+/).length;
      console.log(JSON.stringify({ severity: words > 3 ? 'high' : 'low', words }));
    output_format:
      type: object
      properties: { severity: { type: string }, words: { type: integer } }
      required: [severity, words]
  - id: score
    depends_on: [classify]
    runtime: uv
    script: |
      import json, os
      print(json.loads(os.environ["CLASSIFY_OUTPUT"])["words"] * 10)
  - id: investigate
    depends_on: [score]
    when: "$classify.output.severity == 'high' && $score.output > 30"
    prompt: "[fake:reply investigated at score $score.output]"
  - id: stop
    depends_on: [classify]
    when: "$classify.output.severity == 'low'"
    cancel: "nothing to do for a $classify.output.severity severity report"
  - id: after-stop
    depends_on: [stop]
    runtime: sh
    script: echo never
`;

/** Loops: Cairn's condition (fresh sessions), a bash check (one session continued), Archon's signal. */
const LOOPS = `name: loops
nodes:
  - id: count
    loop:
      prompt: |
        [fake:counter count-$RUN_ID]
      until_condition: "$count.output >= 3"
      max_iterations: 5
      fresh_context: true
  - id: again
    depends_on: [count]
    loop:
      prompt: |
        [fake:counter again-$RUN_ID]
        previous: $LOOP_PREV_OUTPUT after $count.output
      until_bash: test "$AGAIN_OUTPUT" -ge 2 && test "$COUNT_OUTPUT" = 3
      max_iterations: 4
  - id: signal
    depends_on: [again]
    loop:
      prompt: "[fake:reply all good <promise>done</promise>]"
      until: DONE
      max_iterations: 3
  - id: report
    depends_on: [signal]
    bash: echo "signal said $SIGNAL_OUTPUT"
`;

const ENDLESS = `name: endless
nodes:
  - id: forever
    loop:
      prompt: "[fake:reply not yet]"
      until: DONE
      max_iterations: 2
`;

/** Each turn of the fake costs (prompt + answer characters) / 1e6 USD: 0.000019 for the first. */
const budgeted = (budget?: number) => `name: budgeted${budget === undefined ? '' : `-${budget}`}
${budget === undefined ? '' : `max_cost_usd: ${budget}\n`}nodes:
  - id: a
    prompt: "[fake:reply one]"
  - id: b
    depends_on: [a]
    prompt: "[fake:reply two]"
`;

/** The first turn hits the assistant's usage limit, reset `seconds` later. */
const limited = (seconds: number) => `name: limited-${seconds}
nodes:
  - id: ask
    prompt: |
      [fake:usage-limit-once $RUN_ID ${seconds}]
      [fake:reply answered after the limit]
  - id: after
    depends_on: [ask]
    bash: echo "got $ASK_OUTPUT"
`;

for (const kind of databaseKinds()) {
  describe(`workflow language: script and cancel nodes (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    const call: WorkflowRunHarness['call'] = (...args) => harness.call(...args);
    const runToEnd: WorkflowRunHarness['runToEnd'] = (...args) => harness.runToEnd(...args);

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/triage.yaml': TRIAGE,
        '.cairn/workflows/loops.yaml': LOOPS,
        '.cairn/workflows/endless.yaml': ENDLESS,
        '.cairn/workflows/limited-2.yaml': limited(2),
        '.cairn/workflows/budgeted-0.00001.yaml': budgeted(0.00001),
        '.cairn/workflows/budgeted.yaml': budgeted(),
        '.cairn/workflows/limited-600.yaml': limited(600),
        // For the bundled implement-until-green: a project whose test needs the fix.
        'package.json': JSON.stringify({
          name: 'app',
          private: true,
          scripts: { test: 'test -f fixed.txt' },
        }),
      });
    });

    after(() => harness.close());

    it('feeds a JavaScript script node and a Python one into a when, and completes', async () => {
      const { run, events } = await runToEnd('triage', 'the parser crashes on empty files');
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const completed = ended(events, 'node_completed');
      expect(completed.classify!.output).to.deep.equal({ severity: 'high', words: 6 });
      expect(completed.score!.output).to.equal('60');
      expect(completed.investigate!.output).to.equal('investigated at score 60');
      const skipped = ended(events, 'node_skipped');
      expect(Object.keys(skipped)).to.have.members(['stop', 'after-stop']);
    });

    it('ends the run cancelled with the cancel node reason once its when holds; later nodes never start', async () => {
      const { run, events } = await runToEnd('triage', 'typo');
      expect(run.status).to.equal('cancelled');
      const cancelledEvent = events.find((event) => event.type === 'run_cancelled')!;
      expect(cancelledEvent.payload).to.deep.include({
        reason: 'nothing to do for a low severity report',
        nodeId: 'stop',
      });
      expect(cancelledEvent.actor).to.equal(null);
      const started = events.filter((e) => e.type === 'node_started').map((e) => e.nodeId);
      expect(started).to.include('stop').and.not.include('after-stop');
      expect(started).to.not.include('investigate');
      expect(ended(events, 'node_completed').stop!.output).to.equal(
        'nothing to do for a low severity report',
      );
    });

    it('reaches a cancel node again when a run that failed after it is resumed, instead of going past it', async () => {
      const conversation = await harness.conversation();
      const { run } = await runToEnd('triage', 'typo', { conversation });
      expect(run.status).to.equal('cancelled');
      // The state a worker lost right after the cancel node leaves: the node recorded, the run
      // not ended, then failed by the reconciler.
      await harness.test.db.knex('events').where({ run_id: run.runId, type: 'run_cancelled' }).delete();
      await harness.test.db.knex('workflow_runs').where({ id: run.runId }).update({ status: 'failed' });
      const { stream } = conversation;
      const seen = stream.frames.length;
      const resumed = await call<Run>('POST', `/api/workflows/runs/${run.runId}/resume`);
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
      await stream.waitFor(
        (frame) =>
          stream.frames.indexOf(frame) >= seen &&
          frame.data.type === 'run_cancelled' &&
          frame.data.runId === run.runId,
        60_000,
      );
      const { run: after, events } = (
        await call<{ run: Run; events: RunEvent[] }>('GET', `/api/workflows/runs/${run.runId}`)
      ).body;
      expect(after.status).to.equal('cancelled');
      const stops = events.filter((e) => e.type === 'node_started' && e.nodeId === 'stop');
      expect(stops).to.have.length(2);
      const started = events.filter((e) => e.type === 'node_started').map((e) => e.nodeId);
      expect(started).to.not.include('after-stop');
    });

    it('repeats loops until their condition, bash check or signal says done, each iteration an event', async () => {
      const { run, events } = await runToEnd('loops', 'loop it');
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const iterations = (nodeId: string) =>
        events
          .filter((e) => e.type === 'node_iteration' && e.nodeId === nodeId)
          .map((e) => [e.payload.iteration, e.payload.output, e.payload.done]);
      expect(iterations('count')).to.deep.equal([
        [1, '1', false],
        [2, '2', false],
        [3, '3', true],
      ]);
      expect(iterations('again')).to.deep.equal([
        [1, '1', false],
        [2, '2', true],
      ]);
      expect(iterations('signal')).to.deep.equal([[1, 'all good', true]]);
      const completed = ended(events, 'node_completed');
      expect(completed.count).to.deep.include({ output: '3', iterations: 3 });
      expect(completed.signal).to.deep.include({ output: 'all good', iterations: 1 });
      expect(completed.report!.output).to.equal('signal said all good');

      // fresh_context: every turn a new session; otherwise the first session goes on.
      const turns = harness.fakes.invocations().filter((turn) => String(turn.prompt).includes(run.runId));
      const counting = turns.filter((turn) => String(turn.prompt).includes('counter count-'));
      expect(counting).to.have.length(3);
      expect(counting.map((turn) => turn.resume ?? null)).to.deep.equal([null, null, null]);
      const continuing = turns.filter((turn) => String(turn.prompt).includes('counter again-'));
      expect(continuing).to.have.length(2);
      expect(continuing[0]!.resume ?? null).to.equal(null);
      expect(continuing[1]!.resume).to.equal(continuing[0]!.sessionId);
      expect(String(continuing[1]!.prompt)).to.include('previous: 1 after 3');
    });

    it('fails a loop that reaches max_iterations without its end condition', async () => {
      const { run, events } = await runToEnd('endless', 'go');
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal(
        'node forever failed: the loop did not reach its end condition in 2 iterations',
      );
      expect(events.filter((e) => e.type === 'node_iteration').map((e) => e.payload.output)).to.deep.equal([
        'not yet',
        'not yet',
      ]);
    });

    it('runs the bundled implement-until-green: implements, loops until the checks pass, commits', async () => {
      const { run, events } = await runToEnd(
        'implement-until-green',
        'Add the fix\n[fake:write fixed.txt done]',
      );
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const iterations = events.filter((e) => e.type === 'node_iteration' && e.nodeId === 'green');
      expect(iterations.map((e) => e.payload.done)).to.deep.equal([true]);
      expect(String(ended(events, 'node_completed').commit!.output)).to.match(
        /^Committed [0-9a-f]+ on cairn\//,
      );
      // The loop continued the implementing session (context: shared).
      const turns = harness.fakes.invocations();
      const implement = turns.find((turn) => String(turn.prompt).includes('[fake:write fixed.txt done]'))!;
      const green = turns.find((turn) =>
        String(turn.prompt).includes("The project's checks ran after your last change"),
      )!;
      expect(green.resume).to.equal(implement.sessionId);
    });

    it('waits out a usage limit on a durable timer, the run running with its waitingUntil, then goes on by itself', async () => {
      const conversation = await harness.conversation();
      const started = await call<Run & { waitingUntil: string | null }>(
        'POST',
        '/api/workflows/limited-2/run',
        {
          message: 'go',
          conversationId: conversation.id,
        },
      );
      const { runId } = started.body;
      const waiting = await conversation.stream.waitFor(
        (frame) => frame.data.type === 'node_waiting' && frame.data.runId === runId,
        60_000,
      );
      expect(waiting.data).to.deep.include({ nodeId: 'ask', reason: 'usage_limit' });
      const during = await call<{ run: Run & { waitingUntil: string | null } }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(during.body.run.status).to.equal('running');
      expect(during.body.run.waitingUntil).to.equal(waiting.data.until);
      const end = await conversation.stream.waitFor(
        (frame) =>
          ['run_completed', 'run_failed'].includes(String(frame.data.type)) && frame.data.runId === runId,
        60_000,
      );
      expect(end.data.type).to.equal('run_completed');
      const after = await call<{ run: Run & { waitingUntil: string | null }; events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(after.body.run.waitingUntil).to.equal(null);
      const types = after.body.events.filter((e) => e.nodeId === 'ask').map((e) => e.type);
      expect(types).to.deep.equal(['node_started', 'node_waiting', 'node_resumed', 'node_completed']);
      expect(ended(after.body.events, 'node_completed').after!.output).to.equal(
        'got answered after the limit',
      );
    });

    /** A run of limited-600 on a new conversation, once its node waits out the ten-minute limit. */
    const runWaitingTenMinutes = async () => {
      const conversation = await harness.conversation();
      const started = await call<Run>('POST', '/api/workflows/limited-600/run', {
        message: 'go',
        conversationId: conversation.id,
      });
      const { runId } = started.body;
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'node_waiting' && frame.data.runId === runId,
        60_000,
      );
      return { conversation, runId };
    };

    it('cancels a run at once while it waits out a usage limit', async () => {
      const { conversation, runId } = await runWaitingTenMinutes();
      const cancelled = await call<Run & { waitingUntil: string | null }>(
        'POST',
        `/api/workflows/runs/${runId}/cancel`,
      );
      expect(cancelled.body).to.deep.include({ status: 'cancelled', waitingUntil: null });
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'run_cancelled' && frame.data.runId === runId,
        30_000,
      );
      const detail = await call<{ events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`);
      expect(detail.body.events.map((e) => e.type)).to.not.include('node_resumed');
    });

    it('goes on at once when a run waiting out a usage limit is resumed, without waiting for the reset', async () => {
      const { conversation, runId } = await runWaitingTenMinutes();
      const resumed = await call<Run & { waitingUntil: string | null }>(
        'POST',
        `/api/workflows/runs/${runId}/resume`,
      );
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
      expect(resumed.body.status).to.equal('running');
      // Completed long before the limit's ten minutes.
      const end = await waitForRunEnd(conversation.stream, runId, 60_000);
      expect(end.data.type).to.equal('run_completed');
      const detail = await call<{ run: Run & { waitingUntil: string | null }; events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(detail.body.run.waitingUntil).to.equal(null);
      const woken = detail.body.events.find((e) => e.type === 'run_woken')!;
      expect(woken.actor).to.equal('reviewer');
      const resumedNode = detail.body.events.find((e) => e.type === 'node_resumed')!;
      expect(resumedNode.payload).to.deep.equal({ reason: 'usage_limit', wokenBy: 'reviewer' });
      expect(ended(detail.body.events, 'node_completed').after!.output).to.equal(
        'got answered after the limit',
      );
      // A run that does not wait is not woken: resume stays an operation on failed runs.
      const again = await call<{ code: string }>('POST', `/api/workflows/runs/${runId}/resume`);
      expect(again.status).to.equal(409);
    });

    it('pauses a run that spent its max_cost_usd before the next node; approving allows as much again', async () => {
      const conversation = await harness.conversation();
      const started = await call<Run>('POST', '/api/workflows/budgeted-0.00001/run', {
        message: 'go',
        conversationId: conversation.id,
      });
      const { runId } = started.body;
      const asked = await conversation.stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === runId,
        60_000,
      );
      expect(asked.data.nodeId).to.equal('$budget');
      expect(String(asked.data.message)).to.match(
        /^This run has spent USD 0\.0000\d\d, reaching its budget of USD 0\.000010 \(max_cost_usd\)/,
      );
      const paused = await call<{ run: Run; events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`);
      expect(paused.body.run.status).to.equal('paused');
      expect(paused.body.events.filter((e) => e.type === 'node_started').map((e) => e.nodeId)).to.deep.equal([
        'a',
      ]);
      expect(
        (await call('POST', `/api/workflows/runs/${runId}/approve`, { comment: 'fine' })).status,
      ).to.equal(200);
      const end = await conversation.stream.waitFor(
        (frame) =>
          ['run_completed', 'run_failed', 'run_cancelled'].includes(String(frame.data.type)) &&
          frame.data.runId === runId,
        60_000,
      );
      expect(end.data.type).to.equal('run_completed');
    });

    it("takes a budget with the run request, and a rejection at the budget's gate cancels the run", async () => {
      const conversation = await harness.conversation();
      const started = await call<Run>('POST', '/api/workflows/budgeted/run', {
        message: 'go',
        conversationId: conversation.id,
        max_cost_usd: 0.00001,
      });
      const { runId } = started.body;
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === runId,
        60_000,
      );
      const rejected = await call<Run>('POST', `/api/workflows/runs/${runId}/reject`, { reason: 'too dear' });
      expect(rejected.status).to.equal(200);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'run_cancelled' && frame.data.runId === runId,
        60_000,
      );
      const detail = await call<{ run: Run; events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`);
      expect(detail.body.run.status).to.equal('cancelled');
      expect(detail.body.events.filter((e) => e.type === 'node_started').map((e) => e.nodeId)).to.deep.equal([
        'a',
      ]);
      const bad = await call<{ errors: Array<{ path: string }> }>('POST', '/api/workflows/budgeted/run', {
        message: 'go',
        conversationId: conversation.id,
        max_cost_usd: -1,
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors[0]!.path).to.equal('/body/max_cost_usd');
    });

    it('validates the new fields with errors naming the node and the field', async () => {
      const answer = await call<{ valid: boolean; errors: string[] }>('POST', '/api/workflows/validate', {
        definition: {
          name: 'bad-scripts',
          nodes: [
            { id: 'no-runtime', script: 'console.log(1)' },
            { id: 'named', script: 'fetch-pages', runtime: 'bun' },
            { id: 'wrong-runtime', script: 'print(1)', runtime: 'ruby' },
            { id: 'js-deps', script: 'console.log(1)', runtime: 'node', deps: ['httpx'] },
            { id: 'bad-dep', script: 'print(1)', runtime: 'uv', deps: ['--index-url=http://x'] },
            { id: 'stray', bash: 'true', runtime: 'sh' },
            { id: 'stop', cancel: 'done', retry: { attempts: 2 }, timeout: '1m' },
            { id: 'blank', cancel: ' ' },
            { id: 'spliced', depends_on: ['stop'], runtime: 'uv', script: 'print("$stop.output")' },
            { id: 'no-limit', loop: { prompt: 'x', until: 'DONE' } },
            { id: 'too-many', loop: { prompt: 'x', until: 'DONE', max_iterations: 51 } },
            { id: 'no-end', loop: { prompt: 'x', max_iterations: 3 } },
            {
              id: 'two-texts',
              loop: { prompt: 'x', command: 'y', until: 'D', max_iterations: 1, fresh_context: 'yes' },
            },
            { id: 'fields', loop: { prompt: 'x', until_condition: '$fields.output.ok', max_iterations: 2 } },
          ],
        },
      });
      expect(answer.status).to.equal(200);
      expect(answer.body.valid).to.equal(false);
      expect(answer.body.errors).to.include.members([
        'nodes[0] "no-runtime": runtime: required on a script node (sh, bun, node, uv, python)',
        'nodes[1] "named": script: "fetch-pages" names a script file; Cairn runs inline code only (write the code in the node)',
        'nodes[2] "wrong-runtime": runtime: must be one of sh, bun, node, uv, python, not "ruby"',
        'nodes[3] "js-deps": deps: only Python scripts (runtime uv or python) have deps, not runtime node',
        'nodes[4] "bad-dep": deps[0]: "--index-url=http://x" is not a Python requirement such as "httpx>=0.27"',
        'nodes[5] "stray": runtime: only script nodes have a runtime',
        'nodes[6] "stop": retry: cancel nodes are not retried',
        'nodes[6] "stop": timeout: cancel nodes have no timeout',
        'nodes[7] "blank": cancel: must not be empty',
        'nodes[8] "spliced": script: $stop.output is not replaced in scripts; read the environment variable $STOP_OUTPUT instead',
        'nodes[9] "no-limit": loop.max_iterations: required (a limit from 1 to 50)',
        'nodes[10] "too-many": loop.max_iterations: must be a whole number from 1 to 50, not 51',
        'nodes[11] "no-end": loop: needs an end condition: until (a completion signal), until_bash or until_condition',
        'nodes[12] "two-texts": loop: needs exactly one of prompt or command',
        'nodes[12] "two-texts": loop.fresh_context: must be true or false, not a string',
        'nodes[13] "fields": loop.until_condition: $fields.output.ok: this loop has no output_format, so its output has no fields',
      ]);
    });
  });
}
