import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { startDevServer, type RunningDevServer } from '../../worker/temporal/dev-server.js';
import { freePort } from '../../worker/temporal/ports.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { jsonClient } from '../support/json-client.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { interruptibleWorkflow, waitForFile, waitForRunEnd } from '../support/run-helpers.js';
import { testTemporalCli } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcessSetup } from '../support/worker-process.js';

function journalMode(file: string): unknown {
  const database = new Database(file, { readonly: true });
  try {
    return database.pragma('journal_mode', { simple: true });
  } finally {
    database.close();
  }
}

interface RunEvent {
  type: string;
  nodeId: string | null;
}

describe('a workflow run while its Temporal server restarts (an external server, as in docker-compose)', function () {
  this.timeout(5 * 60_000);

  it('finishes the node that was running and the rest of the run, each node once', async () => {
    const cliPath = await testTemporalCli();
    const data = makeTempDir('cairn-temporal-data-');
    const markers = makeTempDir('cairn-run-marker-');
    const marker = join(markers.path, 'middle-started');
    const fakes = fakeAssistants();
    const repo = makeTempRepo({
      files: { '.cairn/workflows/outlast.yaml': interruptibleWorkflow('outlast', marker, 4) },
    });
    const port = await freePort();
    const serve = () =>
      startDevServer({
        cliPath: cliPath,
        databaseFile: join(data.path, 'temporal.db'),
        port,
        namespace: 'default',
      });
    let server: RunningDevServer | undefined;
    let connection: Connection | undefined;
    let setup: WorkerProcessSetup | undefined;
    let stream: SseConnection | undefined;
    let runId: string | undefined;
    try {
      server = await serve();
      // Opened in WAL mode: one append and sync per commit instead of a rollback journal's two.
      expect(journalMode(join(data.path, 'temporal.db'))).to.equal('wal');
      connection = await Connection.connect({ address: server.address });
      const client = new Client({ connection });
      setup = await startWorkerProcess(fakes.env, {}, { client, endpoint: { address: server.address } });
      const call = jsonClient(setup.app.url);
      const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {
        codebase_id: codebase.body.id,
      });
      stream = await openSse(`${setup.app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
      const started = await call<{ runId: string }>('POST', '/api/workflows/outlast/run', {
        message: 'go',
        conversationId: conversation.body.id,
      });
      expect(started.status).to.equal(202);
      runId = started.body.runId;

      // The middle node is running while the server goes away and comes back.
      await waitForFile(marker, 120_000);
      await server.stop();
      server = await serve();

      const end = await waitForRunEnd(stream, runId);
      expect(end.data.type).to.equal('run_completed');
      const detail = await call<{ run: { status: string }; events: RunEvent[] }>(
        'GET',
        `/api/workflows/runs/${runId}`,
      );
      expect(detail.body.run.status).to.equal('completed');
      const completed = detail.body.events.filter((event) => event.type === 'node_completed');
      expect(completed.map((event) => event.nodeId).sort()).to.deep.equal(['first', 'last', 'middle']);
      const starts = detail.body.events.filter((event) => event.type === 'node_started');
      expect(starts.map((event) => event.nodeId).sort()).to.deep.equal(['first', 'last', 'middle']);
      expect(readFileSync(marker, 'utf8').trim().split('\n')).to.have.length(1);
    } finally {
      stream?.close();
      if (runId && connection) {
        await new Client({ connection }).workflow
          .getHandle(runWorkflowId(runId))
          .terminate('test over')
          .catch(() => undefined);
      }
      await setup?.close();
      await connection?.close();
      await server?.stop();
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
      data.cleanup();
    }
  });
});
