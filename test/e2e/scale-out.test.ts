import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { conversationWorkflowId } from '../../domain/conversations/conversation-workflow.js';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { freePort } from '../../worker/temporal/ports.js';
import { spawnCairn, waitForOk, waitForOutput, type CairnProcess } from '../support/cairn-process.js';
import { databaseKinds, type TestDatabase } from '../support/databases.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { makeTempRepo } from '../support/git-repos.js';
import { jsonClient } from '../support/json-client.js';
import { parseMetrics, samples } from '../support/prometheus-text.js';
import { waitForRunEnd } from '../support/run-helpers.js';
import { openSse, type SseConnection, type SseFrame } from '../support/sse-client.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

// Two `cairn api` and two `cairn worker` processes on one Postgres database and one Temporal
// server, as docker-compose's scaled topology runs them. Each worker may run three assistant
// sessions at once, so six long turns sent together must be split three and three: the worker
// killed below deterministically holds work of its own.
const SESSIONS_PER_WORKER = 3;
const TURNS = 2 * SESSIONS_PER_WORKER;
const FIRST_RUNS = 4;

interface Conversation {
  id: string;
  platform_conversation_id: string;
}

interface Message {
  id: number;
  role: string;
  content: string;
  turn_status: string | null;
  reply_to_message_id: number | null;
}

interface RunEvent {
  type: string;
  nodeId: string | null;
  payload: Record<string, unknown>;
}

/** Three bash nodes; the middle one notes which worker ran each attempt and waits for a release. */
function gatedWorkflow(markers: string): string {
  return `name: gated
nodes:
  - id: first
    bash: echo "first $ARGUMENTS on $SCALE_OUT_WORKER"
  - id: middle
    depends_on: [first]
    bash: |
      echo "$SCALE_OUT_WORKER" >> '${markers}/'"$ARGUMENTS"
      while [ ! -f '${markers}/release' ]; do sleep 0.1; done
      echo "middle $ARGUMENTS"
  - id: last
    depends_on: [middle]
    bash: echo "last after $MIDDLE_OUTPUT"
`;
}

function replyWords(tag: string): string {
  return Array.from({ length: 30 }, (_, index) => `${tag}w${index}`).join(' ');
}

function needPostgres(): NonNullable<ReturnType<typeof databaseKinds>[number]> {
  const postgres = databaseKinds().find((kind) => kind.name === 'postgres');
  if (!postgres) throw new Error('the scale-out test needs Postgres: set TEST_DATABASE_URL (CI does)');
  return postgres;
}

describe('scale-out: two cairn api and two cairn worker processes on Postgres', function () {
  this.timeout(4 * 60_000);

  it('finishes every turn and run exactly once through kill -9 of a worker and an API; one API streams it all', async () => {
    const temporal = await testTemporal();
    const fakes = fakeAssistants();
    const home = makeTempHome();
    const cwd = makeTempDir();
    const markers = makeTempDir('cairn-scale-out-');
    const repo = makeTempRepo({
      files: { 'README.md': '# app\n', '.cairn/workflows/gated.yaml': gatedWorkflow(markers.path) },
    });
    let database: TestDatabase | undefined;
    const processes: CairnProcess[] = [];
    const streams: SseConnection[] = [];
    const workflowIds: string[] = [];
    try {
      database = await needPostgres().create({ migrate: false });
      const common: NodeJS.ProcessEnv = {
        ...process.env,
        ...fakes.env,
        FAKE_ASSISTANT_ECHO_ENV: 'SCALE_OUT_WORKER',
        CAIRN_HOME: home.home,
        DATABASE_URL: database.databaseUrl,
        TEMPORAL_ADDRESS: temporal.endpoint.address,
        MAX_CONCURRENT_CONVERSATIONS: String(SESSIONS_PER_WORKER),
        LOG_LEVEL: 'warn',
      };
      const [portA, portB] = [await freePort(), await freePort()];
      // All four start at once: their migrations wait for each other.
      const startApi = (port: number) => {
        const api = spawnCairn(['api'], { env: { ...common, PORT: String(port) }, cwd: cwd.path });
        processes.push(api);
        return api;
      };
      const startWorker = (name: string) => {
        const worker = spawnCairn(['worker'], { env: { ...common, SCALE_OUT_WORKER: name }, cwd: cwd.path });
        processes.push(worker);
        return worker;
      };
      const [apiA, apiB] = [startApi(portA), startApi(portB)];
      const workers = { w1: startWorker('w1'), w2: startWorker('w2') };
      const urlA = `http://127.0.0.1:${portA}`;
      const urlB = `http://127.0.0.1:${portB}`;
      await Promise.all([
        waitForOutput(workers.w1, 'worker ready', 120_000),
        waitForOutput(workers.w2, 'worker ready', 120_000),
        waitForOk(`${urlA}/health/ready`, apiA, 120_000),
        waitForOk(`${urlB}/health/ready`, apiB, 120_000),
      ]);
      const callA = jsonClient(urlA);
      const callB = jsonClient(urlB);
      const both = [callA, callB];

      // The one SSE client: every stream it reads is on API A.
      const dashboard = await openSse(`${urlA}/api/stream/__dashboard__`, { lastEventId: 0 });
      streams.push(dashboard);

      // A burst of conversations and long turns, alternately on A and B.
      const chats: Array<{ conversation: Conversation; stream: SseConnection }> = [];
      for (let index = 0; index < TURNS; index += 1) {
        const created = await both[index % 2]!<Conversation>('POST', '/api/conversations');
        expect(created.status).to.equal(201);
        const stream = await openSse(`${urlA}/api/stream/${created.body.platform_conversation_id}`, {
          lastEventId: 0,
        });
        streams.push(stream);
        chats.push({ conversation: created.body, stream });
        workflowIds.push(conversationWorkflowId(created.body.id));
      }
      const firstMessages = await Promise.all(
        chats.map(async ({ conversation }, index) => {
          const posted = await both[index % 2]!<{ message_id: number }>(
            'POST',
            `/api/conversations/${conversation.platform_conversation_id}/message`,
            { message: `[fake:slow 250]\n[fake:reply ${replyWords(`t${index}`)}]\nturn t${index}` },
          );
          expect(posted.status).to.equal(202);
          return posted.body.message_id;
        }),
      );

      // Runs of a gated workflow, alternately on A and B, in one conversation with the repository.
      const codebase = await callA<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      expect(codebase.status).to.equal(201);
      const runHome = await callB<Conversation>('POST', '/api/conversations', {
        codebase_id: codebase.body.id,
      });
      workflowIds.push(conversationWorkflowId(runHome.body.id));
      const runs: Array<{ runId: string; tag: string }> = [];
      const startRun = async (call: typeof callA) => {
        const tag = `r${runs.length}`;
        const started = await call<{ runId: string }>('POST', '/api/workflows/gated/run', {
          message: tag,
          conversationId: runHome.body.id,
        });
        expect(started.status, JSON.stringify(started.body)).to.equal(202);
        runs.push({ runId: started.body.runId, tag });
        workflowIds.push(runWorkflowId(started.body.runId));
      };
      for (let index = 0; index < FIRST_RUNS; index += 1) await startRun(both[index % 2]!);
      const attemptsOf = (tag: string) =>
        existsSync(join(markers.path, tag))
          ? readFileSync(join(markers.path, tag), 'utf8').trim().split('\n')
          : [];
      const waitForGates = async () => {
        const deadline = Date.now() + 60_000;
        while (!runs.every(({ tag }) => attemptsOf(tag).length === 1)) {
          if (Date.now() > deadline) throw new Error(`runs not at their gate: ${JSON.stringify(runs)}`);
          await sleep(100);
        }
      };
      await waitForGates();
      // Which worker took a run is the server's choice: add runs until each worker holds one.
      while (new Set(runs.map(({ tag }) => attemptsOf(tag)[0])).size < 2) {
        if (runs.length >= 16) throw new Error('every run went to one worker');
        await startRun(callA);
        await waitForGates();
      }

      // Every turn is streaming (on A, whichever API took it and whichever worker runs it).
      await Promise.all(
        chats.map(({ stream }, index) =>
          stream.waitFor((f) => f.data.type === 'text' && f.data.messageId === firstMessages[index], 60_000),
        ),
      );
      // The fake's log of turns (not of the title requests, which quote the message).
      const turnInvocations = () =>
        fakes
          .invocations()
          .filter((entry) => !String(entry.prompt).startsWith('Reply with only a short title'));
      const firstAttempts = new Map<string, string>();
      for (const entry of turnInvocations()) {
        const tag = /turn (t\d+)/.exec(String(entry.prompt))?.[1];
        const worker = (entry.echoedEnv as Record<string, string>).SCALE_OUT_WORKER!;
        if (tag && !firstAttempts.has(tag)) firstAttempts.set(tag, worker);
      }
      const turnsOn = (worker: string) =>
        [...firstAttempts].filter(([, name]) => name === worker).map(([tag]) => tag);
      // Three and three when all six overlap, as they do unless the machine is very slow.
      expect(turnsOn('w1').length + turnsOn('w2').length).to.equal(TURNS);
      expect(turnsOn('w1'), 'turns taken by w1').to.not.deep.equal([]);
      expect(turnsOn('w2'), 'turns taken by w2').to.not.deep.equal([]);
      const runsOnW1 = runs.filter(({ tag }) => attemptsOf(tag)[0] === 'w1').map(({ tag }) => tag);

      // kill -9 of worker w1 (turns and a run in its hands) and of API B.
      workers.w1.child.kill('SIGKILL');
      apiB.child.kill('SIGKILL');
      expect(await workers.w1.exited).to.equal('SIGKILL');
      expect(await apiB.exited).to.equal('SIGKILL');
      writeFileSync(join(markers.path, 'release'), '');
      // w1's turns it had not completed when it died (read from the database, after the kill).
      const completed = async (index: number) => {
        const page = await callA<{ items: Message[] }>(
          'GET',
          `/api/conversations/${chats[index]!.conversation.platform_conversation_id}/messages`,
        );
        return page.body.items.find((m) => m.id === firstMessages[index])?.turn_status === 'completed';
      };
      const cutShort: string[] = [];
      for (const tag of turnsOn('w1')) if (!(await completed(Number(tag.slice(1))))) cutShort.push(tag);
      expect(cutShort, 'turns w1 was in the middle of').to.not.deep.equal([]);

      // More of the burst, now to A alone: a message to every conversation, two more runs.
      const secondMessages = await Promise.all(
        chats.map(async ({ conversation }, index) => {
          const posted = await callA<{ message_id: number }>(
            'POST',
            `/api/conversations/${conversation.platform_conversation_id}/message`,
            { message: `after the kill ${index}` },
          );
          expect(posted.status).to.equal(202);
          return posted.body.message_id;
        }),
      );
      await startRun(callA);
      await startRun(callA);

      // Everything ends, as A's streams tell.
      const ends = (stream: SseConnection, messageId: number) =>
        stream.frames.filter(
          (f) => ['turn_completed', 'turn_failed'].includes(f.data.type) && f.data.messageId === messageId,
        );
      await Promise.all(
        chats.map(({ stream }, index) =>
          stream.waitFor(
            (f) => f.data.type === 'turn_completed' && f.data.messageId === secondMessages[index],
            150_000,
          ),
        ),
      );
      const runEnds = await Promise.all(runs.map(({ runId }) => waitForRunEnd(dashboard, runId, 150_000)));
      expect(runEnds.map((frame) => frame.data.type)).to.deep.equal(runs.map(() => 'run_completed'));

      // Turns: each answered exactly once, with its own answer; w1's restarted on w2.
      for (const [index, { conversation, stream }] of chats.entries()) {
        const tag = `t${index}`;
        for (const messageId of [firstMessages[index]!, secondMessages[index]!]) {
          expect(
            ends(stream, messageId).map((f) => f.data.type),
            `${tag}: ends of message ${messageId}`,
          ).to.deep.equal(['turn_completed']);
        }
        const starts = stream.frames.filter(
          (f: SseFrame) => f.data.type === 'turn_started' && f.data.messageId === firstMessages[index],
        );
        const restarted = cutShort.includes(tag);
        expect(
          starts.map((f) => f.data.restarted),
          `${tag}: starts`,
        ).to.deep.equal(restarted ? [false, true] : [false]);
        const page = await callA<{ items: Message[] }>(
          'GET',
          `/api/conversations/${conversation.platform_conversation_id}/messages`,
        );
        const answers = (messageId: number) =>
          page.body.items
            .filter((m) => m.role === 'assistant' && m.reply_to_message_id === messageId)
            .map((m) => m.content);
        expect(answers(firstMessages[index]!), `${tag}: first answer`).to.deep.equal([replyWords(tag)]);
        expect(answers(secondMessages[index]!), `${tag}: second answer`).to.deep.equal([
          `Echo: after the kill ${index}`,
        ]);
        expect(page.body.items.filter((m) => m.role === 'user').map((m) => m.turn_status)).to.deep.equal([
          'completed',
          'completed',
        ]);
      }
      // The restarted turns ran again on the surviving worker.
      const workersOf = (tag: string) =>
        turnInvocations()
          .filter((entry) => String(entry.prompt).includes(`turn ${tag}`))
          .map((entry) => (entry.echoedEnv as Record<string, string>).SCALE_OUT_WORKER);
      for (const [tag, first] of firstAttempts)
        expect(workersOf(tag), tag).to.deep.equal(cutShort.includes(tag) ? ['w1', 'w2'] : [first]);

      // Runs: each node completed once; the gate of w1's runs ran again on w2.
      for (const { runId, tag } of runs) {
        const detail = await callA<{ run: { status: string }; events: RunEvent[] }>(
          'GET',
          `/api/workflows/runs/${runId}`,
        );
        expect(detail.body.run.status, tag).to.equal('completed');
        const completed = detail.body.events.filter((event) => event.type === 'node_completed');
        expect(completed.map((event) => event.nodeId).sort(), tag).to.deep.equal(['first', 'last', 'middle']);
        expect(
          detail.body.events.filter((event) => event.type === 'node_failed'),
          tag,
        ).to.deep.equal([]);
        expect(completed.find((event) => event.nodeId === 'last')!.payload.output, tag).to.equal(
          `last after middle ${tag}`,
        );
        const expected = runsOnW1.includes(tag) ? ['w1', 'w2'] : [attemptsOf(tag)[0]!];
        expect(attemptsOf(tag), `${tag}: middle attempts`).to.deep.equal(expected);
        const runCompleted = dashboard.frames.filter(
          (f) => f.data.type === 'run_completed' && f.data.runId === runId,
        );
        expect(runCompleted, `${tag}: run_completed frames`).to.have.length(1);
      }
      expect(runsOnW1.length, 'runs held by w1').to.be.above(0);

      // Nothing is left waiting or running, by the database's own figures (read through A).
      const metrics = parseMetrics(await (await fetch(`${urlA}/metrics`)).text());
      const value = (name: string, labels: Record<string, string>) =>
        samples(metrics, name, labels).reduce((sum, sample) => sum + Number(sample.value), 0);
      expect(value('cairn_conversation_turns', { state: 'active' }), 'active turns').to.equal(0);
      expect(value('cairn_conversation_turns', { state: 'queued' }), 'queued turns').to.equal(0);
      expect(value('cairn_workflow_runs', { status: 'completed' }), 'completed runs').to.equal(runs.length);
      expect(value('cairn_workflow_runs', {}), 'runs in any status').to.equal(runs.length);
      // A still serves, and still has a worker on every queue.
      expect((await fetch(`${urlA}/health/ready`)).status).to.equal(200);
    } finally {
      for (const stream of streams) stream.close();
      writeFileSync(join(markers.path, 'release'), '');
      for (const id of workflowIds) {
        await temporal.client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined);
      }
      // A clean stop of the survivors; a kill if one hangs.
      await Promise.all(
        processes.map((child) => {
          const kill = setTimeout(() => child.child.kill('SIGKILL'), 20_000);
          return child.stop('SIGTERM').finally(() => clearTimeout(kill));
        }),
      );
      await database?.dispose();
      fakes.cleanup();
      repo.cleanup();
      markers.cleanup();
      home.cleanup();
      cwd.cleanup();
    }
  });
});
