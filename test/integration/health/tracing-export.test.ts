import { expect } from 'chai';
import { freePort } from '../../../worker/temporal/ports.js';
import { startTracing, type StartedTracing } from '../../../infra/telemetry/start-tracing.js';
import type { TracingSettings } from '../../../infra/telemetry/tracing-settings.js';
import { tracingHooks } from '../../../config/tracing.js';
import { captureLogs } from '../../support/logs.js';
import { databaseKinds } from '../../support/databases.js';
import { startLiveCore, type LiveCore } from '../../support/live-core.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';

const settings = (
  url: string,
  protocol: TracingSettings['protocol'],
  sampler: TracingSettings['sampler'] = 'always_on',
): TracingSettings => ({
  url,
  protocol,
  headers: {},
  serviceName: 'cairn-api',
  serviceVersion: '0.0.0-test',
  sampler,
  ratio: 1,
});

/** The API of a live core in this process, with tracing started as `cairn api` starts it. */
describe('tracing export from a live API (OTLP/HTTP)', function () {
  this.timeout(90_000);
  const [sqlite] = databaseKinds();
  let core: LiveCore;
  let tracing: StartedTracing | undefined;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    logs = captureLogs('info');
    core = await startLiveCore(sqlite!, { 'README.md': '# shop\n' }, { logger: logs.logger });
  });

  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });

  after(async () => {
    await core?.close();
  });

  const get = (path: string) => fetch(`${core.app.url}${path}`);

  it('with a wrong endpoint (a closed port), answers every request and says so once', async () => {
    const closed = await freePort();
    tracing = startTracing(
      settings(`http://cairn:hunter2@127.0.0.1:${closed}/v1/traces`, 'http/protobuf'),
      logs.logger,
    );
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) expect((await get('/api/conversations')).status).to.equal(200);
      // Each flush is one more export to the closed port, as the batch timer would make; a flush
      // asked for says it failed (the timer's own exports only reach the SDK's error handler).
      const flushed = await tracing.spanProcessor.forceFlush().then(
        () => 'exported',
        () => 'failed',
      );
      expect(flushed).to.equal('failed');
    }
    const failures = logs.lines.filter((line) => line.event === 'tracing.export_failed');
    expect(failures, logs.text()).to.have.length(1);
    expect(failures[0]).to.include({ endpoint: `http://127.0.0.1:${closed}/v1/traces` });
    expect(logs.text()).to.not.include('hunter2');

    // The requests' log lines carry their trace beside the request id all the same.
    const requests = logs.lines.filter(
      (line) => line.msg === 'http.request' && line.path === '/api/conversations',
    );
    expect(requests).to.have.length(20);
    for (const line of requests) {
      expect(line.trace_id).to.match(/^[0-9a-f]{32}$/);
      expect(line.span_id).to.match(/^[0-9a-f]{16}$/);
      expect(line.requestId).to.be.a('string');
    }
    expect(new Set(requests.map((line) => line.trace_id)).size).to.equal(20);
  });

  it('exports protobuf by default, and JSON when asked, each request a server span named by its route', async () => {
    const receiver: OtlpReceiver = await startOtlpReceiver();
    try {
      tracing = startTracing(settings(`${receiver.endpoint}/v1/traces`, 'http/protobuf'), logs.logger);
      expect((await get('/api/conversations')).status).to.equal(200);
      await tracing.spanProcessor.forceFlush();
      expect(receiver.contentTypes).to.deep.equal(['application/x-protobuf']);
      await tracing.shutdown();

      tracing = startTracing(settings(`${receiver.endpoint}/v1/traces`, 'http/json'), logs.logger);
      const created = await fetch(`${core.app.url}/api/conversations`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
        },
        body: '{}',
      });
      expect(created.status).to.equal(201);
      const id = ((await created.json()) as { platform_conversation_id: string }).platform_conversation_id;
      expect((await get(`/api/conversations/${id}`)).status).to.equal(200);
      expect((await get('/api/no-such-thing')).status).to.equal(404);
      await tracing.spanProcessor.forceFlush();
      const names = receiver.spans.map((span) => span.name);
      expect(names).to.include.members(['POST /api/conversations', 'GET /api/conversations/:id', 'GET']);
      const post = receiver.spans.find((span) => span.name === 'POST /api/conversations')!;
      // An incoming traceparent is continued: same trace, the caller's span as parent.
      expect(post).to.include({
        traceId: 'ab'.repeat(16),
        parentSpanId: 'cd'.repeat(8),
        serviceName: 'cairn-api',
      });
      expect(post.attributes).to.include({
        'http.route': '/api/conversations',
        'http.response.status_code': 201,
      });
    } finally {
      await receiver.close();
    }
  });

  it('lets a read the sampler leaves out run outside any trace, and a change carry its unsampled context', async () => {
    const receiver = await startOtlpReceiver();
    try {
      tracing = startTracing(
        settings(`${receiver.endpoint}/v1/traces`, 'http/json', 'always_off'),
        logs.logger,
      );
      // The http.request line is written when the response closes, just after the client has it.
      const requestLine = async (method: string) => {
        const seen = logs.lines.length;
        for (let waited = 0; waited < 5000; waited += 20) {
          const line = logs.lines
            .slice(seen)
            .find((entry) => entry.msg === 'http.request' && entry.method === method);
          if (line) return line;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`no http.request line for ${method}`);
      };
      const read = requestLine('GET');
      expect((await get('/api/conversations')).status).to.equal(200);
      expect(await read).to.not.have.property('trace_id');
      const change = requestLine('POST');
      const created = await fetch(`${core.app.url}/api/conversations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(created.status).to.equal(201);
      // Not sampled, yet in a trace: what it starts in Temporal is told so and stays unsampled.
      expect((await change).trace_id).to.match(/^[0-9a-f]{32}$/);
      await tracing.spanProcessor.forceFlush();
      expect(receiver.spans).to.deep.equal([]);
    } finally {
      await receiver.close();
    }
  });

  it('follows an incoming traceparent: a sampled one is traced, an unsampled one is continued unsampled', async () => {
    const receiver = await startOtlpReceiver();
    try {
      // No new trace is kept: whatever is exported was asked for by the caller.
      tracing = startTracing(
        settings(`${receiver.endpoint}/v1/traces`, 'http/json', 'parentbased_always_off'),
        logs.logger,
      );
      const traceparent = (traceId: string, flags: string) => `00-${traceId}-${'cd'.repeat(8)}-${flags}`;
      expect((await get('/api/conversations')).status).to.equal(200);
      const unsampledRead = await fetch(`${core.app.url}/api/conversations`, {
        headers: { traceparent: traceparent('11'.repeat(16), '00') },
      });
      expect(unsampledRead.status).to.equal(200);
      const sampledRead = await fetch(`${core.app.url}/api/conversations`, {
        headers: { traceparent: traceparent('22'.repeat(16), '01') },
      });
      expect(sampledRead.status).to.equal(200);
      const seen = logs.lines.length;
      const unsampledChange = await fetch(`${core.app.url}/api/conversations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', traceparent: traceparent('33'.repeat(16), '00') },
        body: '{}',
      });
      expect(unsampledChange.status).to.equal(201);
      await tracing.spanProcessor.forceFlush();
      expect(receiver.spans.map((span) => [span.name, span.traceId])).to.deep.equal([
        ['GET /api/conversations', '22'.repeat(16)],
      ]);
      expect(receiver.spans[0]).to.include({ parentSpanId: 'cd'.repeat(8) });
      // The unsampled change stays in its caller's trace (what it starts is told "not sampled"),
      // not a new root the sampler would decide on again.
      for (let waited = 0; waited < 5000; waited += 20) {
        if (logs.lines.slice(seen).some((line) => line.msg === 'http.request')) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const line = logs.lines.slice(seen).find((entry) => entry.msg === 'http.request');
      expect(line).to.include({ method: 'POST', trace_id: '33'.repeat(16) });
    } finally {
      await receiver.close();
    }
  });

  it('leaves nothing behind when tracing shuts down: requests make no spans', async () => {
    const receiver = await startOtlpReceiver();
    try {
      tracing = startTracing(settings(`${receiver.endpoint}/v1/traces`, 'http/json'), logs.logger);
      await tracing.shutdown();
      tracing = undefined;
      expect(tracingHooks()).to.equal(undefined);
      expect((await get('/api/conversations')).status).to.equal(200);
      const line = logs.lines.filter((entry) => entry.msg === 'http.request').at(-1)!;
      expect(line).to.not.have.property('trace_id');
      expect(receiver.contentTypes).to.deep.equal([]);
    } finally {
      await receiver.close();
    }
  });
});
