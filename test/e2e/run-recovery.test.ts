import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, type Database } from '../../db/connection.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { spawnCairn, waitForOutput, type CairnProcess } from '../support/cairn-process.js';
import { startTestCoreApp, type TestCoreApp } from '../support/core-app.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { testServiceContext } from '../support/service-context.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

interface RunEvent {
  type: string;
  nodeId: string | null;
  payload: Record<string, unknown>;
}

async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`no ${path} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Three bash nodes; the middle one records each attempt in a marker file, then takes a while. */
function workflow(markerDir: string): string {
  return `name: recover
nodes:
  - id: first
    bash: echo "first for $ARGUMENTS"
  - id: middle
    depends_on: [first]
    bash: |
      echo attempt >> '${join(markerDir, 'attempts')}'
      sleep 5
      echo "middle after $FIRST_OUTPUT"
  - id: last
    depends_on: [middle]
    bash: echo "last after $MIDDLE_OUTPUT"
`;
}

describe('a worker killed in the middle of a workflow run', function () {
  this.timeout(5 * 60_000);

  it('completes the run on another worker, each node completed once', async () => {
    const temporal = await testTemporal();
    const home = makeTempHome();
    const cwd = makeTempDir();
    const markers = makeTempDir('cairn-run-marker-');
    const fakes = fakeAssistants();
    const repo = makeTempRepo({
      files: { 'README.md': '# app\n', '.cairn/workflows/recover.yaml': workflow(markers.path) },
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...fakes.env,
      CAIRN_HOME: home.home,
      TEMPORAL_ADDRESS: temporal.endpoint.address,
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    const startWorker = async () => {
      const worker = spawnCairn(['worker'], { env, cwd: cwd.path });
      await waitForOutput(worker, 'worker ready', 120_000);
      return worker;
    };
    let worker: CairnProcess | undefined;
    let db: Database | undefined;
    let app: TestCoreApp | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      worker = await startWorker();
      db = openDatabase({ sqliteFile: join(home.home, 'cairn.db') });
      const context = testServiceContext(db, { home: home.home, env: fakes.env });
      app = await startTestCoreApp(db, context, { temporal, taskQueue: DEFAULT_TASK_QUEUE });
      const call = async <T>(method: string, path: string, body?: unknown) => {
        const response = await fetch(`${app!.url}${path}`, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as T };
      };

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
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = await startWorker();

      const end = await stream.waitFor(
        (frame) =>
          ['run_completed', 'run_failed', 'run_cancelled'].includes(frame.data.type) &&
          frame.data.runId === runId,
        180_000,
      );
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
      if (runId) {
        await temporal.client.workflow
          .getHandle(runWorkflowId(runId))
          .terminate('test over')
          .catch(() => undefined);
      }
      await app?.close();
      await worker?.stop('SIGTERM');
      await db?.close();
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
      home.cleanup();
      cwd.cleanup();
    }
  });
});
