import { expect } from 'chai';
import * as api from '@opentelemetry/api';
import { activeTraceFields, tracingHooks, withSpan } from '../../../config/tracing.js';
import { runGit } from '../../../infra/git/run-git.js';
import type { StartedTracing } from '../../../infra/telemetry/start-tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { startTestTracing, UNSAMPLED_TRACE as UNSAMPLED } from '../../support/test-tracing.js';

describe('git spans inside and outside a sampled trace', function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  let tracing: StartedTracing;
  let repo: TempRepo;

  before(async () => {
    receiver = await startOtlpReceiver();
    repo = makeTempRepo({ files: { 'README.md': '# spans\n' } });
    tracing = startTestTracing(receiver);
  });

  after(async () => {
    await tracing?.shutdown();
    await receiver?.close();
    repo?.cleanup();
  });

  const exported = async () => {
    await tracing.spanProcessor.forceFlush();
    return receiver.spans.splice(0);
  };

  it('makes no span for git inside an unsampled trace, whose context the work keeps', async () => {
    const parent = api.trace.setSpan(api.ROOT_CONTEXT, api.trace.wrapSpanContext(UNSAMPLED));
    const head = await api.context.with(parent, () => runGit(['rev-parse', 'HEAD'], { cwd: repo.path }));
    expect(head.trim()).to.match(/^[0-9a-f]{40}$/);
    // No span at all, not even one that records nothing: the work runs in its parent's context.
    const inside = await api.context.with(parent, () =>
      withSpan('git status', {}, async (span) => ({ span, fields: activeTraceFields() })),
    );
    expect(inside.span).to.equal(undefined);
    expect(inside.fields).to.deep.equal({ trace_id: UNSAMPLED.traceId, span_id: UNSAMPLED.spanId });
    expect(await exported()).to.deep.equal([]);
  });

  it('makes a child span for git inside a sampled trace, and none outside any trace', async () => {
    await runGit(['rev-parse', 'HEAD'], { cwd: repo.path });
    expect(await exported()).to.deep.equal([]);

    const { tracer } = tracingHooks()!;
    const request = tracer.startSpan('GET /api/codebases/:id');
    await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, request), () =>
      runGit(['rev-parse', 'HEAD'], { cwd: repo.path }),
    );
    request.end();
    const spans = await exported();
    const git = spans.find((span) => span.name === 'git rev-parse');
    expect(git, JSON.stringify(spans)).to.include({
      traceId: request.spanContext().traceId,
      parentSpanId: request.spanContext().spanId,
    });
  });
});
