import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { jsonClient } from '../support/json-client.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { overlapCheckingWorkflow, waitForFile, waitForRunEnd } from '../support/run-helpers.js';
import { startWorkerProcess, type WorkerProcessSetup } from '../support/worker-process.js';
import { isAlive } from '../support/processes.js';

interface RunEvent {
  type: string;
  nodeId: string | null;
  payload: Record<string, unknown>;
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
      const { app } = setup;
      const call = jsonClient(app.url);

      const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      expect(codebase.status).to.equal(201);
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {
        codebase_id: codebase.body.id,
      });
      stream = await openSse(`${app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
      const started = await call<{ runId: string }>('POST', '/api/workflows/recover/run', {
        message: 'the task',
        conversationId: conversation.body.id,
      });
      expect(started.status).to.equal(202);
      runId = started.body.runId;
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
      const deadline = Date.now() + 90_000;
      while (readFileSync(attemptsFile, 'utf8').trim().split('\n').length < 2) {
        if (Date.now() > deadline) throw new Error('the middle node was not retried');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
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
      const call = jsonClient(setup.app.url);
      const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {
        codebase_id: codebase.body.id,
      });
      const stream = await openSse(`${setup.app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
      const started = await call<{ runId: string }>('POST', '/api/workflows/prepared/run', {
        message: 'go',
        conversationId: conversation.body.id,
      });
      runId = started.body.runId;
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
