import { expect } from 'chai';
import { freePort } from '../../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';

const GATED = `name: gated
nodes:
  - id: before
    bash: echo prepared
  - id: gate
    depends_on: [before]
    approval:
      message: Continue after the restart?
      capture_response: true
  - id: after
    depends_on: [gate]
    prompt: "[fake:reply finished with $gate.output]"
`;

describe('a paused run across a restart of the whole service (API, worker and Temporal)', function () {
  this.timeout(10 * 60_000);

  it('waits at its gate through SIGTERM and a new start, then finishes when approved', async () => {
    const home = makeTempHome();
    const cwd = makeTempDir();
    const fakes = fakeAssistants();
    const repo = makeTempRepo({ files: { '.cairn/workflows/gated.yaml': GATED } });
    const port = await freePort();
    const env = standaloneCairnEnv(home.home, port, fakes.env);
    const base = `http://127.0.0.1:${port}`;
    let cairn: CairnProcess | undefined;
    const start = async () => {
      cairn = spawnCairn(['start'], { env, cwd: cwd.path });
      await waitForOk(`${base}/health`, cairn, 10 * 60_000);
    };
    const call = async <T>(method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as T;
    };
    const statusOf = async (runId: string) =>
      (await call<{ run: { status: string } }>('GET', `/api/workflows/runs/${runId}`)).run.status;
    const until = async (check: () => Promise<boolean>) => {
      for (let waited = 0; !(await check()); waited += 200) {
        if (waited > 120_000) throw new Error(`gave up waiting:\n${cairn?.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    try {
      await start();
      const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {
        codebase_id: codebase.id,
      });
      const run = await call<{ runId: string }>('POST', '/api/workflows/gated/run', {
        message: 'go',
        conversationId: conversation.id,
      });
      await until(async () => (await statusOf(run.runId)) === 'paused');

      expect(await cairn!.stop('SIGTERM')).to.equal(0);
      await start();
      expect(await statusOf(run.runId)).to.equal('paused');

      await call('POST', `/api/workflows/runs/${run.runId}/approve`, { comment: 'yes' });
      await until(async () => (await statusOf(run.runId)) === 'completed');
      const detail = await call<{
        events: Array<{ type: string; nodeId: string | null; payload: { output?: unknown } }>;
      }>('GET', `/api/workflows/runs/${run.runId}`);
      const after = detail.events.find(
        (event) => event.type === 'node_completed' && event.nodeId === 'after',
      );
      expect(after?.payload.output).to.equal('finished with yes');
      expect(
        detail.events.filter((event) => event.type === 'node_completed' && event.nodeId === 'before'),
      ).to.have.length(1);
    } finally {
      // SIGTERM: a SIGKILLed cairn start leaves its Temporal server running (by design, for the
      // next start to find), and this home is deleted next.
      await cairn?.stop('SIGTERM');
      repo.cleanup();
      fakes.cleanup();
      home.cleanup();
      cwd.cleanup();
    }
  });
});
