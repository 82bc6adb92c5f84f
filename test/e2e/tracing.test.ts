import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../worker/temporal/ports.js';
import { spawnCairn, standaloneCairnEnv, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { fakeAssistants, type FakeAssistantSetup } from '../support/fake-assistants.js';
import { makeTempRepo, type TempRepo } from '../support/git-repos.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';

const TRACED = `name: traced
nodes:
  - id: shell
    bash: echo traced
  - id: ask
    depends_on: [shell]
    prompt: "[fake:reply done]"
`;

const SERVER = 2;

/**
 * A real `cairn start` exporting to an OTLP receiver on loopback: one request that starts a run
 * is one trace, from the HTTP span through the workflow client, the workflow and its activities
 * to the git commands and the assistant turn they make.
 */
describe('traces of cairn start, exported over OTLP/HTTP', function () {
  this.timeout(5 * 60_000);
  let receiver: OtlpReceiver;
  let fakes: FakeAssistantSetup;
  let home: ReturnType<typeof makeTempHome>;
  let cwd: ReturnType<typeof makeTempDir>;
  let repo: TempRepo;
  let cairn: CairnProcess | undefined;
  let base: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    fakes = fakeAssistants();
    home = makeTempHome();
    cwd = makeTempDir();
    repo = makeTempRepo({ files: { '.cairn/workflows/traced.yaml': TRACED } });
    const port = await freePort();
    const env = standaloneCairnEnv(home.home, port, {
      ...fakes.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Every trace, exported within a fifth of a second (the default keeps a tenth, every 5 s).
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    env.LOG_LEVEL = 'info';
    cairn = spawnCairn(['start'], { env, cwd: cwd.path });
    base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`, cairn, 3 * 60_000);
  });

  after(async () => {
    await cairn?.stop();
    await receiver?.close();
    repo?.cleanup();
    fakes?.cleanup();
    cwd?.cleanup();
    home?.cleanup();
  });

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ body: T; requestId: string }> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}`).to.be.below(300);
    return { body: (await response.json()) as T, requestId: response.headers.get('x-request-id') ?? '' };
  }

  async function until<T>(what: string, find: () => T | undefined | Promise<T | undefined>): Promise<T> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
      const found = await find();
      if (found !== undefined) return found;
    }
    throw new Error(`gave up waiting for ${what}:\n${cairn?.output()}`);
  }

  it('links the request, the workflow, its activities and their git and assistant calls in one trace', async () => {
    const codebase = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
    const conversation = await call<{ id: string }>('POST', '/api/conversations', {
      codebase_id: codebase.body.id,
    });
    const started = await call<{ runId: string }>('POST', '/api/workflows/traced/run', {
      message: 'go',
      conversationId: conversation.body.id,
    });
    await until('the run to complete', async () => {
      const detail = await call<{ run: { status: string } }>(
        'GET',
        `/api/workflows/runs/${started.body.runId}`,
      );
      return detail.body.run.status === 'completed' ? true : undefined;
    });

    const request = await until('the span of the request', () =>
      receiver.spans.find(
        (span) => span.kind === SERVER && span.attributes['cairn.request_id'] === started.requestId,
      ),
    );
    expect(request.name).to.equal('POST /api/workflows/:name/run');
    expect(request.attributes['http.route']).to.equal('/api/workflows/:name/run');
    expect(request.attributes['http.response.status_code']).to.equal(202);
    expect(request.serviceName).to.equal('cairn');
    const inTrace = () => receiver.spans.filter((span) => span.traceId === request.traceId);
    const childOf = (parent: ReceivedSpan, name: string | RegExp) =>
      inTrace().filter(
        (span) =>
          span.parentSpanId === parent.spanId &&
          (typeof name === 'string' ? span.name === name : name.test(span.name)),
      );

    const start = await until('StartWorkflow', () => childOf(request, 'StartWorkflow:workflowRun')[0]);
    const run = await until('RunWorkflow', () => childOf(start, 'RunWorkflow:workflowRun')[0]);
    // Each activity: scheduled by the workflow (StartActivity), run by a worker (RunActivity).
    const activity = async (type: string) => {
      const scheduled = await until(`StartActivity:${type}`, () => childOf(run, `StartActivity:${type}`)[0]);
      return until(`RunActivity:${type}`, () => childOf(scheduled, `RunActivity:${type}`)[0]);
    };
    const prepare = await activity('prepareRun');
    const bash = await activity('runBashNode');
    const assistant = await activity('runAssistantNode');
    expect(bash.attributes.temporalWorkflowId).to.equal(`run-${started.body.runId}`);

    // The outbound calls inside them: the run's worktree is made with git, the node asks the assistant.
    const git = await until('a git span under prepareRun', () => childOf(prepare, /^git /)[0]);
    expect(git.name).to.match(/^git [a-z-]+$/);
    const turn = await until('the assistant turn', () => childOf(assistant, 'assistant turn')[0]);
    expect(turn.attributes['cairn.assistant']).to.equal('claude');

    // The request's log line carries the trace beside its request id.
    const lines = cairn!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const logged = lines.find((line) => line.msg === 'http.request' && line.requestId === started.requestId);
    expect(logged, 'the http.request line of the run request').to.include({
      trace_id: request.traceId,
      span_id: request.spanId,
    });
  });
});
