import { expect } from 'chai';
import * as api from '@opentelemetry/api';
import { tracingHooks } from '../../../config/tracing.js';
import type { StartedTracing } from '../../../infra/telemetry/start-tracing.js';
import type { TracingSettings } from '../../../infra/telemetry/tracing-settings.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { startTestTracing, UNSAMPLED_TRACE as UNSAMPLED } from '../../support/test-tracing.js';

describe("a new trace's sampling decided before any span is made", function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  let tracing: StartedTracing | undefined;

  before(async () => {
    receiver = await startOtlpReceiver();
  });

  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
    receiver.spans.splice(0);
  });

  after(async () => {
    await receiver?.close();
  });

  const start = (sampler: TracingSettings['sampler'], ratio: number) => {
    tracing = startTestTracing(receiver, { sampler, ratio });
    return tracingHooks()!;
  };

  it('keeps a new trace at the configured odds, for the parent-based and the fixed samplers', async () => {
    const decided: Array<boolean | undefined> = [];
    for (const [sampler, ratio] of [
      ['parentbased_traceidratio', 1],
      ['parentbased_traceidratio', 0],
      ['always_on', 0.1],
      ['parentbased_always_off', 1],
      ['traceidratio', 0.5],
    ] as const) {
      decided.push(start(sampler, ratio).rootDecision?.keep());
      await tracing!.shutdown();
      tracing = undefined;
    }
    // A bare ratio sampler decides each span by its trace id again: only the SDK can say.
    expect(decided).to.deep.equal([true, false, true, false, undefined]);
  });

  it('makes the SDK keep a root started in the kept context, and only a root', async () => {
    // Nothing new is kept by the sampler itself: whatever is exported was kept beforehand.
    const { tracer, rootDecision } = start('parentbased_traceidratio', 0);
    const kept = tracer.startSpan('GET /api/conversations', {}, rootDecision!.keptRoot);
    expect(kept.isRecording()).to.equal(true);
    const child = tracer.startSpan('git status', {}, api.trace.setSpan(rootDecision!.keptRoot, kept));
    expect(child.isRecording()).to.equal(true);
    child.end();
    kept.end();
    // The mark keeps no span whose parent was left out: it follows its parent.
    const unsampledParent = api.trace.setSpan(rootDecision!.keptRoot, api.trace.wrapSpanContext(UNSAMPLED));
    expect(tracer.startSpan('git fetch', {}, unsampledParent).isRecording()).to.equal(false);
    expect(tracer.startSpan('GET /health', {}, api.ROOT_CONTEXT).isRecording()).to.equal(false);
    await tracing!.spanProcessor.forceFlush();
    const spans = receiver.spans.map((span) => [span.name, span.traceId, span.parentSpanId]);
    expect(spans).to.have.deep.members([
      ['GET /api/conversations', kept.spanContext().traceId, ''],
      ['git status', kept.spanContext().traceId, kept.spanContext().spanId],
    ]);
  });
});
