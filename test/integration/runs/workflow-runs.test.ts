import { expect } from 'chai';
import { isAlive, readPid, waitFor } from '../../support/processes.js';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { fakeAssistants, type FakeAssistantSetup } from '../../support/fake-assistants.js';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { openSse, type SseConnection } from '../../support/sse-client.js';
import { testServiceContext } from '../../support/service-context.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { jsonClient } from '../../support/json-client.js';
import { encodeCursor } from '../../../api/http/index.js';
import YAML from 'yaml';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import { reconcileRuns } from '../../../services/runs/reconcile-runs.js';
import { searchAttributesRegistered } from '../../../infra/temporal/search-attributes.js';
import { RUN_STATUS_ATTRIBUTE, WORKFLOW_NAME_ATTRIBUTE } from '../../../domain/runs/run-search-attributes.js';

interface Run {
  runId: string;
  status: string;
  error: string | null;
  totalTokens: number;
  currentNode: string | null;
}
interface RunEvent {
  type: string;
  nodeId: string | null;
  actor: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

const GATED = `name: gated
description: bash, an approval, then the assistant
nodes:
  - id: facts
    bash: |
      printf '%s' "counted $(ls | wc -l | tr -d ' ') files for: $ARGUMENTS"
  - id: gate
    depends_on: [facts]
    approval:
      message: "Go ahead? $facts.output"
      capture_response: true
  - id: answer
    depends_on: [gate]
    prompt: |
      [fake:reply notes were $gate.output]
      $facts.output
`;

const FLAKY = `name: flaky
nodes:
  - id: first
    bash: echo first
  - id: second
    depends_on: [first]
    bash: test -f "$ARTIFACTS_DIR/ok" && echo second
  - id: third
    depends_on: [second]
    bash: echo "third after $SECOND_OUTPUT"
`;

const REWORK = `name: rework
nodes:
  - id: draft
    prompt: "[fake:reply first draft]"
  - id: gate
    depends_on: [draft]
    approval:
      message: Accept the draft?
      on_reject:
        prompt: "[fake:reply reworked because $REJECTION_REASON]"
        max_attempts: 1
`;

const SLOW = `name: slow
nodes:
  - id: wait
    bash: |
      sleep 300 &
      echo $! > "$ARTIFACTS_DIR/sleep.pid"
      wait
`;

const IN_PLACE = `name: in-place
isolation: none
nodes:
  - id: where
    bash: |
      printf '%s %s %s' "$(pwd -P)" "$(git rev-parse --abbrev-ref HEAD)" "$BASE_BRANCH"
`;

for (const kind of databaseKinds()) {
  describe(`workflow runs (${kind.name})`, function () {
    this.timeout(120_000);
    let test: TestDatabase;
    let workers: RunningTestWorkers;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    let fakes: FakeAssistantSetup;
    let repo: TempRepo;
    const streams: SseConnection[] = [];

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      fakes = fakeAssistants();
      repo = makeTempRepo({
        files: {
          'README.md': '# app\n',
          '.cairn/workflows/gated.yaml': GATED,
          '.cairn/workflows/flaky.yaml': FLAKY,
          '.cairn/workflows/slow.yaml': SLOW,
          '.cairn/workflows/rework.yaml': REWORK,
          '.cairn/workflows/in-place.yaml': IN_PLACE,
        },
      });
      const context = testServiceContext(test.db, { home: home.path, env: fakes.env });
      workers = await startTestWorkers(test.db, { dependencies: context });
      const searchAttributes = await searchAttributesRegistered(
        workers.temporal.client.connection,
        'default',
      );
      app = await startTestCoreApp(test.db, context, workers, { searchAttributes });
    });

    afterEach(async () => {
      for (const stream of streams.splice(0)) stream.close();
      await app.close();
      await workers.stop();
      await test.dispose();
      repo.cleanup();
      fakes.cleanup();
      home.cleanup();
    });

    const call = jsonClient(() => app.url, { 'X-Forwarded-User': 'reviewer' });

    async function codebaseConversation() {
      const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {
        codebase_id: codebase.body.id,
      });
      const stream = await openSse(`${app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
      streams.push(stream);
      return { id: conversation.body.id, stream };
    }

    async function start(workflow: string, conversationId: string, message = 'the task'): Promise<Run> {
      const started = await call<Run>('POST', `/api/workflows/${workflow}/run`, { message, conversationId });
      expect(started.status).to.equal(202);
      return started.body;
    }

    const runEnd = (
      stream: SseConnection,
      runId: string,
      types = ['run_completed', 'run_failed', 'run_cancelled'],
    ) => stream.waitFor((frame) => types.includes(frame.data.type) && frame.data.runId === runId, 60_000);

    async function detail(runId: string) {
      return (await call<{ run: Run; events: RunEvent[] }>('GET', `/api/workflows/runs/${runId}`)).body;
    }

    it('runs bash, pauses at an approval, takes the comment as output, and finishes with the assistant', async () => {
      const conversation = await codebaseConversation();
      const run = await start('gated', conversation.id, 'tidy $(rm -rf /) the docs');
      const requested = await conversation.stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === run.runId,
        60_000,
      );
      expect(requested.data.message).to.equal('Go ahead? counted 1 files for: tidy $(rm -rf /) the docs');
      expect((await detail(run.runId)).run.status).to.equal('paused');

      const approved = await call<Run>('POST', `/api/workflows/runs/${run.runId}/approve`, {
        comment: 'ship it',
      });
      expect(approved.status).to.equal(200);
      const second = await call<{ code: string; currentState: string }>(
        'POST',
        `/api/workflows/runs/${run.runId}/approve`,
        {},
      );
      expect(second.status).to.equal(409);
      await runEnd(conversation.stream, run.runId);

      const { run: done, events } = await detail(run.runId);
      expect(done.status).to.equal('completed');
      expect(done.totalTokens).to.be.greaterThan(0);
      for (const operation of ['cancel', 'resume', 'abandon', 'approve', 'reject']) {
        const refused = await call<{ currentState: string }>(
          'POST',
          `/api/workflows/runs/${run.runId}/${operation}`,
          {},
        );
        expect([operation, refused.status, refused.body.currentState]).to.deep.equal([
          operation,
          409,
          'completed',
        ]);
      }
      const answer = events.find((event) => event.type === 'node_completed' && event.nodeId === 'answer')!;
      expect(answer.payload.output).to.equal('notes were ship it');
      const received = events.find((event) => event.type === 'approval_received')!;
      expect(received).to.deep.include({ actor: 'reviewer' });
      expect(events.map((event) => event.type)).to.include.members([
        'run_started',
        'node_started',
        'run_completed',
      ]);

      const invocation = fakes.invocations().at(-1)!;
      expect(String(invocation.cwd)).to.include(join('worktrees', 'run-'));
      expect(git(String(invocation.cwd), 'rev-parse', '--abbrev-ref', 'HEAD')).to.match(/^cairn\/run-/);
      const execution = workers.temporal.client.workflow.getHandle(`run-${run.runId}`);
      await execution.result();
      const description = await execution.describe();
      expect(description.typedSearchAttributes.get(RUN_STATUS_ATTRIBUTE)).to.equal('completed');
      expect(description.typedSearchAttributes.get(WORKFLOW_NAME_ATTRIBUTE)).to.equal('gated');
      const dashboard = await openSse(`${app.url}/api/stream/__dashboard__`, { lastEventId: 0 });
      streams.push(dashboard);
      await dashboard.waitFor(
        (frame) => frame.data.type === 'run_completed' && frame.data.runId === run.runId,
      );
    });

    it('ends a rejected run cancelled with the reason', async () => {
      const conversation = await codebaseConversation();
      const run = await start('gated', conversation.id);
      await conversation.stream.waitFor((frame) => frame.data.type === 'approval_requested', 60_000);
      const rejected = await call<Run>('POST', `/api/workflows/runs/${run.runId}/reject`, {
        reason: 'not now',
      });
      expect(rejected.body.status).to.equal('cancelled');
      const { events } = await detail(run.runId);
      expect(events.find((event) => event.type === 'run_cancelled')!.payload.reason).to.equal(
        'rejected: not now',
      );
      expect((await call('POST', `/api/workflows/runs/${run.runId}/approve`, {})).status).to.equal(409);
      expect(events.some((event) => event.nodeId === 'answer' && event.type === 'node_started')).to.equal(
        false,
      );
    });

    it('reworks after a rejection when the gate says so, then asks again; cancels once the attempts are spent', async () => {
      const conversation = await codebaseConversation();
      const run = await start('rework', conversation.id);
      const requests = () =>
        conversation.stream.frames.filter((frame) => frame.data.type === 'approval_requested');
      await conversation.stream.waitFor((frame) => frame.data.type === 'approval_requested', 60_000);
      const first = await call<Run>('POST', `/api/workflows/runs/${run.runId}/reject`, {
        reason: 'too long',
      });
      expect(first.body.status).to.equal('running');
      await conversation.stream.waitFor(() => requests().length === 2, 60_000);
      expect(
        fakes.invocations().some((entry) => String(entry.prompt).includes('reworked because too long')),
      ).to.equal(true);
      const last = await call<Run>('POST', `/api/workflows/runs/${run.runId}/reject`, {
        reason: 'still too long',
      });
      expect(last.body.status).to.equal('cancelled');
      const { events } = await detail(run.runId);
      expect(events.filter((event) => event.type === 'node_reworking')).to.have.length(1);
      expect(events.find((event) => event.type === 'run_cancelled')!.payload.reason).to.equal(
        'rejected: still too long',
      );
    });

    it('fails a run whose node fails, and resumes it without running completed nodes again', async () => {
      const conversation = await codebaseConversation();
      const run = await start('flaky', conversation.id);
      expect((await runEnd(conversation.stream, run.runId)).data.type).to.equal('run_failed');
      const failed = await detail(run.runId);
      expect(failed.run.status).to.equal('failed');
      expect(failed.run.error).to.match(/node second failed/);

      writeFileSync(join(await artifactsOf(run.runId), 'ok'), '');
      const resumed = await call<Run>('POST', `/api/workflows/runs/${run.runId}/resume`);
      expect(resumed.body.status).to.equal('running');
      await runEnd(conversation.stream, run.runId, ['run_completed']);
      const { run: done, events } = await detail(run.runId);
      expect(done.status).to.equal('completed');
      const firstStarts = events.filter((event) => event.type === 'node_started' && event.nodeId === 'first');
      expect(firstStarts).to.have.length(1);
      const third = events.find((event) => event.type === 'node_completed' && event.nodeId === 'third')!;
      expect(third.payload.output).to.equal('third after second');
      expect(events.map((event) => event.type)).to.include('run_resumed');
      expect((await call('POST', `/api/workflows/runs/${run.runId}/resume`)).status).to.equal(409);
    });

    it('cancels a running run and kills its processes; deletes it once finished', async () => {
      const { run, pid } = await startSlowRun();
      expect((await call('DELETE', `/api/workflows/runs/${run.runId}`)).status).to.equal(409);
      const cancelled = await call<Run>('POST', `/api/workflows/runs/${run.runId}/cancel`);
      expect(cancelled.body.status).to.equal('cancelled');
      await untilGone(pid);
      expect(isAlive(pid)).to.equal(false);
      expect((await call('POST', `/api/workflows/runs/${run.runId}/cancel`)).status).to.equal(409);
      expect((await call('DELETE', `/api/workflows/runs/${run.runId}`)).status).to.equal(204);
      expect((await call('GET', `/api/workflows/runs/${run.runId}`)).status).to.equal(404);
    });

    it('cancels the runs of a deleted codebase and stops their processes', async () => {
      const { run, pid } = await startSlowRun();
      const codebaseId = ((await test.db.knex('codebases').first()) as { id: string }).id;
      const deleted = await call<{ cancelledRuns: number }>('DELETE', `/api/codebases/${codebaseId}`);
      expect(deleted.body.cancelledRuns).to.equal(1);
      const { run: after, events } = await detail(run.runId);
      expect(after.status).to.equal('cancelled');
      expect(events.find((event) => event.type === 'run_cancelled')!.actor).to.be.a('string');
      await untilGone(pid);
      expect(isAlive(pid)).to.equal(false);
    });

    it('abandons a paused run for good and lists runs with filters', async () => {
      const conversation = await codebaseConversation();
      const run = await start('gated', conversation.id);
      await conversation.stream.waitFor((frame) => frame.data.type === 'approval_requested', 60_000);
      const abandoned = await call<Run>('POST', `/api/workflows/runs/${run.runId}/abandon`);
      expect(abandoned.body.status).to.equal('abandoned');
      const handle = workers.temporal.client.workflow.getHandle(`run-${run.runId}`);
      expect((await handle.describe()).status.name).to.equal('TERMINATED');
      expect((await call('POST', `/api/workflows/runs/${run.runId}/abandon`)).status).to.equal(409);

      const list = await call<{ items: Run[] }>(
        'GET',
        `/api/workflows/runs?status=abandoned&conversationId=${conversation.id}`,
      );
      expect(list.body.items.map((item) => item.runId)).to.deep.equal([run.runId]);
      expect(
        (await call<{ items: Run[] }>('GET', '/api/workflows/runs?status=running')).body.items,
      ).to.deep.equal([]);
      expect((await call('GET', '/api/workflows/runs?status=nonsense')).status).to.equal(400);
      for (const path of ['/api/workflows/runs', '/api/dashboard/runs']) {
        expect((await call('GET', `${path}?since=2016-12-31T23:59:60Z`)).status, path).to.equal(400);
        expect((await call('GET', `${path}?until=yesterday`)).status, path).to.equal(400);
      }
      const byWorker = await call<{ run: Run }>('GET', `/api/workflows/runs/by-worker/${conversation.id}`);
      expect(byWorker.body.run.runId).to.equal(run.runId);
    });

    it('pages run lists by cursor, and refuses a forged cursor whose date is not an ISO instant', async () => {
      const made = [];
      for (const message of ['first', 'second', 'third']) {
        made.push(await createRun(test.db.knex, { workflowName: 'gated', definition: {}, message }));
      }
      // Lists are newest first by (createdAt, id): runs made in the same millisecond go by id.
      const newestFirst = made
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (b.id < a.id ? -1 : 1))
        .map((run) => run.id);
      for (const path of ['/api/workflows/runs', '/api/dashboard/runs']) {
        const first = (await call<{ items: Run[]; nextCursor?: string }>('GET', `${path}?limit=2`)).body;
        expect(first.nextCursor, path).to.be.a('string');
        const next = await call<{ items: Run[]; nextCursor?: string }>(
          'GET',
          `${path}?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`,
        );
        expect(
          [...first.items, ...next.body.items].map((item) => item.runId),
          path,
        ).to.deep.equal(newestFirst);
        expect(next.body.nextCursor, path).to.equal(undefined);

        for (const date of ['not-a-date', 'yesterday', '2024-01-01']) {
          const forged = encodeCursor([date, made[0]!.id]);
          const answer = await call<{ code: string }>('GET', `${path}?cursor=${encodeURIComponent(forged)}`);
          expect(answer.status, `${path} ${date}`).to.equal(400);
          expect(answer.body.code, `${path} ${date}`).to.equal('invalid_cursor');
        }
      }
    });

    it('reconciles: starts a run that never started, fails one whose execution is gone, stops one that outlived its cancel', async () => {
      const conversation = await codebaseConversation();
      const reconcile = () =>
        reconcileRuns({
          client: workers.temporal.client,
          taskQueue: workers.taskQueue,
          db: test.db,
          logger: testServiceContext(test.db, { home: home.path }).logger,
          graceMs: 0,
        });
      // Stored as the API stores it, but its start never reached Temporal.
      const orphan = await createRun(test.db.knex, {
        workflowName: 'flaky',
        definition: YAML.parse(FLAKY) as Record<string, unknown>,
        message: 'x',
        conversationId: conversation.id,
      });
      const paused = await start('gated', conversation.id);
      await conversation.stream.waitFor((frame) => frame.data.type === 'approval_requested', 60_000);
      await workers.temporal.client.workflow
        .getHandle(`run-${paused.runId}`)
        .terminate('lost in an accident');

      // Cancelled in the database, but the signal never reached the execution.
      const unstopped = await start('slow', conversation.id);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'node_started' && frame.data.runId === unstopped.runId,
        60_000,
      );
      await transitionRun(test.db.knex, unstopped.runId, ['running'], 'cancelled');

      const repairs = await reconcile();
      expect(repairs.map((repair) => [repair.runId, repair.action]).sort()).to.deep.equal(
        [
          [orphan.id, 'started'],
          [paused.runId, 'failed'],
          [unstopped.runId, 'stopped'],
        ].sort(),
      );
      await workers.temporal.client.workflow.getHandle(`run-${unstopped.runId}`).result();
      await runEnd(conversation.stream, orphan.id);
      const { run, events } = await detail(paused.runId);
      expect(run.status).to.equal('failed');
      expect(events.at(-1)!.type).to.equal('run_reconciled');
      expect(await reconcile()).to.deep.equal([]);
    });

    it('shows runs on the dashboard with codebase, progress, duration, counts and search', async () => {
      const conversation = await codebaseConversation();
      const failed = await start('flaky', conversation.id, 'make it flake');
      await runEnd(conversation.stream, failed.runId);
      const paused = await start('gated', conversation.id, 'wait for me');
      await conversation.stream.waitFor((frame) => frame.data.type === 'approval_requested', 60_000);
      type Dashboard = {
        items: Array<
          Run & {
            codebaseId: string | null;
            codebaseName: string | null;
            nodesDone: number;
            nodesTotal: number;
            durationMs: number | null;
            lastEventAt: string | null;
          }
        >;
        counts: Record<string, number>;
        nodeLimits: Record<string, unknown>;
      };
      const all = (await call<Dashboard>('GET', '/api/dashboard/runs')).body;
      expect(all.items.map((item) => item.runId)).to.deep.equal([paused.runId, failed.runId]);
      const flakyItem = all.items[1]!;
      expect(flakyItem).to.include({ status: 'failed', nodesTotal: 3, nodesDone: 3 });
      expect(flakyItem.codebaseName).to.be.a('string');
      expect(flakyItem.durationMs).to.be.a('number');
      expect(all.items[0]).to.include({ status: 'paused', nodesTotal: 3, nodesDone: 1 });
      expect(all.counts).to.include({ failed: 1, paused: 1, running: 0 });
      // Each run's latest event, and node limits only for running runs (none here).
      const latest = (await detail(paused.runId)).events.at(-1)!;
      expect(all.items[0]!.lastEventAt).to.equal(latest.createdAt);
      expect(all.nodeLimits).to.deep.equal({});
      // The run detail gives each node's effective timeout: the default hour, none for a gate; and
      // the graph the run follows, from its own definition.
      const pausedDetail = (
        await call<{
          nodeLimits: Array<{ nodeId: string; timeoutMs: number | null; retryDelayMs: number }>;
          nodes: Array<{ nodeId: string; dependsOn: string[] }>;
        }>('GET', `/api/workflows/runs/${paused.runId}`)
      ).body;
      expect(pausedDetail.nodes).to.deep.equal([
        { nodeId: 'facts', dependsOn: [] },
        { nodeId: 'gate', dependsOn: ['facts'] },
        { nodeId: 'answer', dependsOn: ['gate'] },
      ]);
      expect(pausedDetail.nodeLimits.map((limit) => limit.timeoutMs === null)).to.include(true);
      expect(
        pausedDetail.nodeLimits.every((limit) => limit.timeoutMs === null || limit.timeoutMs > 0),
      ).to.equal(true);

      const searched = (await call<Dashboard>('GET', '/api/dashboard/runs?q=FLAKE')).body;
      expect(searched.items.map((item) => item.runId)).to.deep.equal([failed.runId]);
      expect(searched.counts).to.include({ failed: 1, paused: 0 });
      const byCodebase = (
        await call<Dashboard>(`GET`, `/api/dashboard/runs?q=${encodeURIComponent(flakyItem.codebaseName!)}`)
      ).body;
      expect(byCodebase.items).to.have.length(2);
      const pausedOnly = (await call<Dashboard>('GET', '/api/dashboard/runs?status=paused&limit=1')).body;
      expect(pausedOnly.items.map((item) => item.runId)).to.deep.equal([paused.runId]);

      // By workflow (its exact name) and by codebase; the counts follow both.
      const flakyOnly = (await call<Dashboard>('GET', '/api/dashboard/runs?workflow=flaky')).body;
      expect(flakyOnly.items.map((item) => item.runId)).to.deep.equal([failed.runId]);
      expect(flakyOnly.counts).to.include({ failed: 1, paused: 0 });
      expect((await call<Dashboard>('GET', '/api/dashboard/runs?workflow=flak')).body.items).to.deep.equal(
        [],
      );
      const codebaseId = flakyItem.codebaseId!;
      const onCodebase = (
        await call<Dashboard>('GET', `/api/dashboard/runs?codebase_id=${codebaseId}&workflow=gated`)
      ).body;
      expect(onCodebase.items.map((item) => item.runId)).to.deep.equal([paused.runId]);
      expect(onCodebase.counts).to.include({ failed: 0, paused: 1 });
      const elsewhere = (await call<Dashboard>('GET', '/api/dashboard/runs?codebase_id=no-such-codebase'))
        .body;
      expect(elsewhere.items).to.deep.equal([]);
      expect(elsewhere.counts).to.include({ failed: 0, paused: 0 });
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const later = (await call<Dashboard>('GET', `/api/dashboard/runs?workflow=flaky&since=${future}`)).body;
      expect(later.items).to.deep.equal([]);
      expect(later.counts.failed).to.equal(0);
      for (const [param, value] of [
        ['workflow', ''],
        ['workflow', 'x'.repeat(65)],
        ['codebase_id', ''],
        ['codebase_id', 'x'.repeat(65)],
      ] as const) {
        const bad = await call<{ errors?: Array<{ path: string }> }>(
          'GET',
          `/api/dashboard/runs?${param}=${value}`,
        );
        expect(bad.status, `${param}=${value}`).to.equal(400);
        expect(JSON.stringify(bad.body), param).to.include(`/query/${param}`);
      }
      // A running run on the page comes with its nodes' limits, read from its stored definition.
      const stuck = await createRun(test.db.knex, {
        workflowName: 'flaky',
        definition: YAML.parse(FLAKY) as Record<string, unknown>,
        message: 'stuck',
      });
      await test.db.knex('workflow_runs').where({ id: stuck.id }).update({ status: 'running' });
      const withRunning = (await call<Dashboard>('GET', '/api/dashboard/runs?workflow=flaky')).body;
      expect(withRunning.nodeLimits).to.deep.equal({
        [stuck.id]: ['first', 'second', 'third'].map((nodeId) => ({
          nodeId,
          timeoutMs: 3_600_000,
          retryDelayMs: 0,
        })),
      });
      expect(withRunning.items.find((item) => item.runId === stuck.id)!.lastEventAt).to.equal(null);
      await test.db.knex('workflow_runs').where({ id: stuck.id }).delete();
      await call('POST', `/api/workflows/runs/${paused.runId}/abandon`);
    });

    it('runs a workflow that opts out of isolation in the codebase checkout, making no worktree', async () => {
      const conversation = await codebaseConversation();
      const run = await start('in-place', conversation.id);
      await runEnd(conversation.stream, run.runId);
      const { run: done, events } = await detail(run.runId);
      expect(done.status).to.equal('completed');
      const where = events.find((event) => event.type === 'node_completed' && event.nodeId === 'where')!;
      const branch = git(repo.path, 'rev-parse', '--abbrev-ref', 'HEAD');
      expect(where.payload.output).to.equal(`${realpathSync(repo.path)} ${branch} ${branch}`);
      const environments = await test.db.knex('isolation_environments').where({ kind: 'run' });
      expect(environments).to.have.length(0);
      expect(git(repo.path, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).to.have.length(1);
    });

    it('fails a run whose worktree cannot be made with the reason, on its stream, without running a node', async () => {
      const broken = makeTempRepo({
        files: {
          '.cairn/config.yaml': 'worktree:\n  baseBranch: no-such-branch\n',
          '.cairn/workflows/flaky.yaml': FLAKY,
        },
      });
      try {
        const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: broken.path });
        const conversation = await call<{ id: string }>('POST', '/api/conversations', {
          codebase_id: codebase.body.id,
        });
        const stream = await openSse(`${app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
        streams.push(stream);
        const run = await start('flaky', conversation.body.id);
        const failed = await runEnd(stream, run.runId);
        expect(failed.data.type).to.equal('run_failed');
        expect(failed.data.error).to.match(/worktree could not be made.*no-such-branch/s);
        const { run: done, events } = await detail(run.runId);
        expect(done.status).to.equal('failed');
        expect(done.error).to.equal(failed.data.error);
        expect(events.map((event) => event.type)).to.deep.equal(['run_failed']);
      } finally {
        broken.cleanup();
      }
    });

    it('fails review-pr on a conversation without a codebase with the base-branch resolution error, before any node', async () => {
      const conversation = await call<{ id: string }>('POST', '/api/conversations', {});
      const stream = await openSse(`${app.url}/api/stream/${conversation.body.id}`, { lastEventId: 0 });
      streams.push(stream);
      const run = await start('review-pr', conversation.body.id);
      const failed = await runEnd(stream, run.runId);
      expect(failed.data.type).to.equal('run_failed');
      expect(failed.data.error).to.include('Cannot resolve $BASE_BRANCH').and.include('has no codebase');
      expect(failed.data.error).to.not.include('unbound variable');
      const { events } = await detail(run.runId);
      expect(events.map((event) => event.type)).to.deep.equal(['run_failed']);
    });

    it('refuses bad starts: unknown workflow, missing message, unknown or deleted conversation', async () => {
      const conversation = await codebaseConversation();
      expect(
        (await call('POST', '/api/workflows/nope/run', { message: 'x', conversationId: conversation.id }))
          .status,
      ).to.equal(404);
      expect(
        (await call('POST', '/api/workflows/gated/run', { conversationId: conversation.id })).status,
      ).to.equal(400);
      expect(
        (await call('POST', '/api/workflows/gated/run', { message: 'x', conversationId: 'nope' })).status,
      ).to.equal(404);
      expect((await call('POST', '/api/workflows/runs/nope/cancel')).status).to.equal(404);
      // A soft-deleted conversation takes no run: 404, and nothing is stored.
      const gone = await codebaseConversation();
      expect((await call('DELETE', `/api/conversations/${gone.id}`)).status).to.equal(200);
      const refused = await call<{ code: string; errors: unknown[] }>('POST', '/api/workflows/gated/run', {
        message: 'x',
        conversationId: gone.id,
      });
      expect(refused.status).to.equal(404);
      expect(refused.body.code).to.equal('conversation_not_found');
      expect(refused.body.errors).to.deep.equal([
        { path: '/body/conversationId', message: 'names a deleted conversation' },
      ]);
      expect(
        (await call<{ items: unknown[] }>('GET', `/api/workflows/runs?conversationId=${gone.id}`)).body.items,
      ).to.deep.equal([]);
    });

    /** A run of `slow` whose script is sleeping, with the sleeper's pid. */
    async function startSlowRun() {
      const conversation = await codebaseConversation();
      const run = await start('slow', conversation.id);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'node_started' && frame.data.runId === run.runId,
        60_000,
      );
      const pidFile = join(await artifactsOf(run.runId), 'sleep.pid');
      return { run, pid: await waitFor(() => readPid(pidFile), 'the sleeper pid', 30_000) };
    }

    const untilGone = (pid: number) =>
      waitFor(() => !isAlive(pid) || undefined, `process ${pid} to end`, 60_000).catch(() => undefined);

    /** `<workspace>/artifacts/<runId>`, beside the worktrees folder that holds the run's worktree. */
    async function artifactsOf(runId: string): Promise<string> {
      const { path } = (await test.db
        .knex('isolation_environments')
        .where({ kind: 'run', key: runId })
        .first()) as {
        path: string;
      };
      const dir = join(path, '..', '..', 'artifacts', runId);
      mkdirSync(dir, { recursive: true });
      return dir;
    }
  });
}
