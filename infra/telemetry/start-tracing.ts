// Loaded only when an OTLP endpoint is set (cli/boot/tracing.ts imports it dynamically): the
// OpenTelemetry SDK, a batch span processor and an OTLP/HTTP exporter, registered globally so the
// Temporal interceptors, our HTTP middleware and withSpan() all use the same tracer.
import * as api from '@opentelemetry/api';
import { ExportResultCode, setGlobalErrorHandler, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  SamplingDecision,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../../config/logger.js';
import { installTracingHooks } from '../../config/tracing.js';
import { displayEndpoint, type SamplerName, type TracingSettings } from './tracing-settings.js';

export interface StartedTracing {
  /** Ends spans' export: the Temporal workflow span sink hands its spans here. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Exports what is queued (bounded by the export timeout) and unregisters everything. */
  shutdown(): Promise<void>;
}

/** An export waits at most this long for the collector; spans keep queuing meanwhile. */
const EXPORT_TIMEOUT_MS = 10_000;

function samplerFor(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** Marks the context of a root span whose trace rootDecision (below) has already kept. */
const KEPT_ROOT = api.createContextKey('cairn.kept_root');

/**
 * The configured sampler, except for a span with no parent started in a context marked kept:
 * its trace was kept by the same odds before the span was made (config/tracing.ts says why).
 */
class KeptRootSampler implements Sampler {
  constructor(private readonly configured: Sampler) {}

  shouldSample(
    context: api.Context,
    traceId: string,
    name: string,
    kind: api.SpanKind,
    attributes: api.Attributes,
    links: api.Link[],
  ): SamplingResult {
    if (context.getValue(KEPT_ROOT) === true && api.trace.getSpan(context) === undefined)
      return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.configured.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `KeptRoot{${this.configured.toString()}}`;
  }
}

/**
 * The odds a new trace is kept, for the samplers whose root decision is a fixed share and whose
 * children follow their parent; undefined for a bare ratio sampler (its children decide by the
 * trace id again, and must agree with the root).
 */
function rootKeepOdds(name: SamplerName, ratio: number): number | undefined {
  switch (name) {
    case 'always_on':
    case 'parentbased_always_on':
      return 1;
    case 'always_off':
    case 'parentbased_always_off':
      return 0;
    case 'parentbased_traceidratio':
      return Math.min(Math.max(ratio, 0), 1);
    case 'traceidratio':
      return undefined;
  }
}

/**
 * Says once that spans cannot be exported (a wrong endpoint, a collector down), not once per
 * batch, and once more when they can again. Exports run in the background: a dead collector
 * costs requests nothing, and spans beyond the processor's queue are dropped.
 */
class ReportingExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && !this.failing) {
        this.failing = true;
        this.logger.warn(
          { event: 'tracing.export_failed', endpoint: this.endpoint, reason: result.error?.message },
          'traces cannot be exported; spans are dropped until the collector answers',
        );
      } else if (result.code === ExportResultCode.SUCCESS && this.failing) {
        this.failing = false;
        this.logger.info(
          { event: 'tracing.export_recovered', endpoint: this.endpoint },
          'traces export again',
        );
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function exporterFor(settings: TracingSettings): SpanExporter {
  const options = { url: settings.url, headers: settings.headers, timeoutMillis: EXPORT_TIMEOUT_MS };
  return settings.protocol === 'http/json'
    ? new JsonTraceExporter(options)
    : new ProtobufTraceExporter(options);
}

/** Registers the tracer provider globally and installs Cairn's tracing hooks. */
export function startTracing(settings: TracingSettings, logger: Logger): StartedTracing {
  const endpoint = displayEndpoint(settings.url);
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (read again here) win over the role's name.
  const resource = Resource.default()
    .merge(
      new Resource({
        [ATTR_SERVICE_NAME]: settings.serviceName,
        [ATTR_SERVICE_VERSION]: settings.serviceVersion,
      }),
    )
    .merge(envDetectorSync.detect());
  const spanProcessor = new BatchSpanProcessor(
    new ReportingExporter(exporterFor(settings), endpoint, logger),
    { exportTimeoutMillis: EXPORT_TIMEOUT_MS },
  );
  const provider = new NodeTracerProvider({
    resource,
    sampler: new KeptRootSampler(samplerFor(settings.sampler, settings.ratio)),
    spanProcessors: [spanProcessor],
  });
  // The SDK reports failed exports here too, once per batch: the exporter above already said it.
  setGlobalErrorHandler((error) => logger.debug({ event: 'tracing.sdk_error', err: error }, 'tracing'));
  provider.register();
  const odds = rootKeepOdds(settings.sampler, settings.ratio);
  installTracingHooks({
    api,
    tracer: api.trace.getTracer('cairn', settings.serviceVersion),
    rootDecision:
      odds === undefined
        ? undefined
        : { keep: () => Math.random() < odds, keptRoot: api.ROOT_CONTEXT.setValue(KEPT_ROOT, true) },
  });
  logger.info(
    { event: 'tracing.started', endpoint, protocol: settings.protocol, sampler: settings.sampler },
    'tracing on',
  );
  return {
    spanProcessor,
    resource,
    async shutdown() {
      installTracingHooks(undefined);
      await provider.shutdown().catch(() => undefined);
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}
