import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { jsonClient } from '../support/json-client.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { overlapCheckingWorkflow, waitForFile, waitForLines, waitForRunEnd } from '../support/run-helpers.js';
import { startWorkerProcess, type WorkerProcessSetup } from '../support/worker-process.js';
import { isAlive } from '../support/processes.js';

interface RunEvent {
  type: string;
  nodeId: string | null;
  payload: Record<string, unknown>;
}

/** Registers the repository, opens a conversation and its stream, and starts `workflow` on it. */
async function startRunOn(setup: WorkerProcessSetup, repoPath: string, workflow: string, message: string) {
  const call = jsonClient(setup.app.url);
  const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repoPath });
  expect(codebase.status).to.equal(201);
  const conversation = await call<{ id: string }>('POST', '/api/conversations', {
    codebase_id: codebase.body.id,
  });
  const stream = await openSse(`${setup.app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
  const started = await call<{ runId: string }>('POST', `/api/workflows/${workflow}/run`, {
    message,
    conversationId: conversation.body.id,
  });
  expect(started.status).to.equal(202);
  return { call, stream, runId: started.body.runId };
}

describe('a worker killed in the middle of a workflow run', function () {
  this.timeout(5 * 60_000);

  it('completes the run on another worker, each node completed once, the dead attempt killed first', async () => {
    const markers = makeTempDir('cairn-run-marker-');
    const fakes = fakeAssistants();
    const repo = makeTempRepo({
      files: {
        'README.md': '# app\n',
        '.cairn/workflows/recover.yaml': overlapCheckingWorkflow('recover', markers.path),
      },
    });
    let setup: WorkerProcessSetup | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env);
      let call: ReturnType<typeof jsonClient>;
      ({ call, stream, runId } = await startRunOn(setup, repo.path, 'recover', 'the task'));
      const mine = (type: string, nodeId?: string) => (frame: { data: Record<string, unknown> }) =>
        frame.data.type === type &&
        frame.data.runId === runId &&
        (nodeId === undefined || frame.data.nodeId === nodeId);

      await stream.waitFor(mine('node_started', 'middle'), 120_000);
      await waitForFile(join(markers.path, 'attempts'), 60_000);
      await setup.killAndReplaceWorker();
      // The killed worker's script is still running, waiting for the release: the retry must
      // kill it before it starts its own (it would note an overlap otherwise).
      const attemptsFile = join(markers.path, 'attempts');
      await waitForLines(attemptsFile, 2, 90_000, 'the middle node was not retried');
      expect(existsSync(join(markers.path, 'overlap')), 'two attempts alive at once').to.equal(false);
      writeFileSync(join(markers.path, 'release'), '');

      const end = await waitForRunEnd(stream, runId);
      expect(end.data.type).to.equal('run_completed');

      const detail = await call<{ run: { status: string }; events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(detail.status).to.equal(200);
      expect(detail.body.run.status).to.equal('completed');
      const completed = detail.body.events.filter((event) => event.type === 'node_completed');
      expect(completed.map((event) => event.nodeId).sort()).to.deep.equal(['first', 'last', 'middle']);
      const output = (nodeId: string) => completed.find((event) => event.nodeId === nodeId)!.payload.output;
      expect(output('first')).to.equal('first for the task');
      expect(output('middle')).to.equal('middle after first for the task');
      expect(output('last')).to.equal('last after middle after first for the task');
      expect(detail.body.events.filter((event) => event.type === 'node_failed')).to.deep.equal([]);
      // The first node is never run again; the middle one ran again on the new worker.
      const starts = detail.body.events.filter((event) => event.type === 'node_started');
      expect(starts.filter((event) => event.nodeId === 'first')).to.have.length(1);
      expect(starts.filter((event) => event.nodeId === 'last')).to.have.length(1);
      const attempts = readFileSync(join(markers.path, 'attempts'), 'utf8').trim().split('\n');
      expect(attempts.length).to.be.at.least(2);

      // The conversation's stream says the same as the history.
      const streamed = stream.frames.filter((frame) => frame.data.runId === runId);
      expect(streamed.filter((frame) => frame.data.type === 'node_completed')).to.have.length(3);
    } finally {
      stream?.close();
      await setup?.close(runId && runWorkflowId(runId));
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
    }
  });

  it('goes on with a loop whose worker died during its check: no iteration lost or repeated', async () => {
    const markers = makeTempDir('cairn-loop-marker-');
    const fakes = fakeAssistants();
    // The check of each iteration waits for the release; the first one is where the worker dies.
    const loop = [
      'name: loop-recover',
      'nodes:',
      '  - id: spin',
      '    loop:',
      '      prompt: |',
      '        [fake:counter spin-$RUN_ID]',
      '      until_bash: |',
      `        echo check >> '${markers.path}/checks'`,
      `        while [ ! -f '${markers.path}/release' ]; do sleep 0.1; done`,
      '        test "$SPIN_OUTPUT" -ge 2',
      '      max_iterations: 5',
      '      fresh_context: true',
      '  - id: after',
      '    depends_on: [spin]',
      '    bash: echo "after $SPIN_OUTPUT"',
      '',
    ].join('\n');
    const repo = makeTempRepo({
      files: { 'README.md': '# app\n', '.cairn/workflows/loop-recover.yaml': loop },
    });
    let setup: WorkerProcessSetup | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env);
      let call: ReturnType<typeof jsonClient>;
      ({ call, stream, runId } = await startRunOn(setup, repo.path, 'loop-recover', 'spin'));
      const checks = join(markers.path, 'checks');
      await waitForFile(checks, 120_000);
      await setup.killAndReplaceWorker();
      // The check is run again on the new worker; only then is it let through.
      await waitForLines(checks, 2, 90_000, 'the loop check was not retried');
      writeFileSync(join(markers.path, 'release'), '');
      const end = await waitForRunEnd(stream, runId);
      expect(end.data.type).to.equal('run_completed');

      const detail = await call<{ events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`);
      const iterations = detail.body.events.filter((event) => event.type === 'node_iteration');
      expect(
        iterations.map((event) => [event.payload.iteration, event.payload.output, event.payload.done]),
      ).to.deep.equal([
        [1, '1', false],
        [2, '2', true],
      ]);
      // Two turns in all: the first iteration's answer was kept, not asked for again.
      const turns = fakes.invocations().filter((turn) => String(turn.prompt).includes(`spin-${runId}`));
      expect(turns).to.have.length(2);
      const after = detail.body.events.find(
        (event) => event.type === 'node_completed' && event.nodeId === 'after',
      );
      expect(after?.payload.output).to.equal('after 2');
    } finally {
      stream?.close();
      await setup?.close(runId && runWorkflowId(runId));
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
    }
  });

  it('goes on after a usage-limit wait whose worker died: the durable timer fires on the new worker', async () => {
    const fakes = fakeAssistants();
    const limited = [
      'name: limit-recover',
      'nodes:',
      '  - id: ask',
      '    prompt: |',
      '      [fake:usage-limit-once $RUN_ID 6]',
      '      [fake:reply answered after the wait]',
      '',
    ].join('\n');
    const repo = makeTempRepo({
      files: { 'README.md': '# app\n', '.cairn/workflows/limit-recover.yaml': limited },
    });
    let setup: WorkerProcessSetup | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env);
      let call: ReturnType<typeof jsonClient>;
      ({ call, stream, runId } = await startRunOn(setup, repo.path, 'limit-recover', 'wait'));
      await stream.waitFor(
        (frame) => frame.data.type === 'node_waiting' && frame.data.runId === runId,
        120_000,
      );
      await setup.killAndReplaceWorker();
      const end = await waitForRunEnd(stream, runId);
      expect(end.data.type).to.equal('run_completed');
      const detail = await call<{ events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`);
      const types = detail.body.events.filter((event) => event.nodeId === 'ask').map((event) => event.type);
      expect(types).to.deep.equal(['node_started', 'node_waiting', 'node_resumed', 'node_completed']);
      const answer = detail.body.events.find((event) => event.type === 'node_completed')!;
      expect(answer.payload.output).to.equal('answered after the wait');
      // The limited turn and the one after the wait: nothing asked twice.
      const turns = fakes.invocations().filter((turn) => String(turn.prompt).includes(runId!));
      expect(turns).to.have.length(2);
    } finally {
      stream?.close();
      await setup?.close(runId && runWorkflowId(runId));
      fakes.cleanup();
      repo.cleanup();
    }
  });

  it('goes on with a sub-workflow whose worker died while the child ran: one child, each node once', async () => {
    const fakes = fakeAssistants();
    const markers = makeTempDir('cairn-child-recover-');
    const parent = [
      'name: parent-recover',
      'nodes:',
      '  - id: call',
      '    workflow: child-recover',
      '    message: from the parent',
      '  - id: after',
      '    depends_on: [call]',
      '    bash: echo "after $CALL_OUTPUT"',
      '',
    ].join('\n');
    const child = [
      'name: child-recover',
      'nodes:',
      '  - id: hold',
      '    bash: |',
      `      echo attempt >> '${markers.path}/attempts'`,
      `      while [ ! -f '${markers.path}/release' ]; do sleep 0.1; done`,
      '      echo "held $ARGUMENTS"',
      '',
    ].join('\n');
    const repo = makeTempRepo({
      files: {
        'README.md': '# app\n',
        '.cairn/workflows/parent-recover.yaml': parent,
        '.cairn/workflows/child-recover.yaml': child,
      },
    });
    let setup: WorkerProcessSetup | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env);
      let call: ReturnType<typeof jsonClient>;
      ({ call, stream, runId } = await startRunOn(setup, repo.path, 'parent-recover', 'go'));
      const attempts = join(markers.path, 'attempts');
      await waitForFile(attempts, 120_000);
      await setup.killAndReplaceWorker();
      // The child's node is run again on the new worker (its first attempt died with the worker).
      await waitForLines(attempts, 2, 90_000, "the child's node was not retried");
      writeFileSync(join(markers.path, 'release'), '');
      const end = await waitForRunEnd(stream, runId);
      expect(end.data.type).to.equal('run_completed');
      const detail = await call<{ events: RunEvent[]; children: { runId: string; status: string }[] }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(detail.body.children).to.have.length(1);
      expect(detail.body.children[0]!.status).to.equal('completed');
      const after = detail.body.events.find(
        (event) => event.type === 'node_completed' && event.nodeId === 'after',
      );
      expect(after?.payload.output).to.equal('after held from the parent');
      const childDetail = await call<{ events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${detail.body.children[0]!.runId}`,
      );
      const completions = childDetail.body.events.filter((event) => event.type === 'node_completed');
      expect(completions.map((event) => event.nodeId)).to.deep.equal(['hold']);
    } finally {
      stream?.close();
      await setup?.close(runId && runWorkflowId(runId));
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
    }
  });

  it('retries a run preparation whose worker died within a heartbeat timeout, after killing its git', async () => {
    const markers = makeTempDir('cairn-prepare-marker-');
    const fakes = fakeAssistants();
    const repo = makeTempRepo({
      files: {
        'README.md': '# app\n',
        '.cairn/workflows/prepared.yaml':
          'name: prepared\nnodes:\n  - id: only\n    bash: echo "ran in $PWD"\n',
      },
    });
    // git runs this hook inside `git worktree add`, so the run's preparation is held there.
    const hook = join(repo.path, '.git', 'hooks', 'post-checkout');
    writeFileSync(
      hook,
      `#!/bin/sh\necho $$ >> '${markers.path}/hook-pids'\nwhile [ ! -f '${markers.path}/release' ]; do sleep 0.1; done\n`,
      { mode: 0o755 },
    );
    let setup: WorkerProcessSetup | undefined;
    let runId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env);
      const started = await startRunOn(setup, repo.path, 'prepared', 'go');
      const { stream } = started;
      runId = started.runId;
      const hookPids = () =>
        existsSync(join(markers.path, 'hook-pids'))
          ? readFileSync(join(markers.path, 'hook-pids'), 'utf8').trim().split('\n').map(Number)
          : [];
      const waitForHooks = async (count: number) => {
        const deadline = Date.now() + 90_000;
        while (hookPids().length < count) {
          if (Date.now() > deadline) throw new Error(`no hook run number ${count}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await waitForHooks(1);
      expect(isAlive(hookPids()[0]!)).to.equal(true);
      await setup.killAndReplaceWorker();
      // Should the retry run git's checkout again, its hook is let through at once.
      const release = setInterval(() => {
        if (hookPids().length >= 2) writeFileSync(join(markers.path, 'release'), '');
      }, 100);
      // Retried after the heartbeat timeout (about 30 s): waiting for the activity's 10-minute
      // timeout, the run would outlast this test's.
      const end = await waitForRunEnd(stream, runId).finally(() => clearInterval(release));
      expect(end.data.type).to.equal('run_completed');
      expect(isAlive(hookPids()[0]!), "the dead attempt's git still running").to.equal(false);
      stream.close();
    } finally {
      writeFileSync(join(markers.path, 'release'), '');
      await setup?.close(runId && runWorkflowId(runId));
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
    }
  });
});
