// The hook between Cairn's code and OpenTelemetry. Tracing is off unless an OTLP endpoint is set,
// and then infra/telemetry/start-tracing.ts loads the SDK and installs its tracer here. Everything
// below imports only types of @opentelemetry/api, so with tracing off nothing of OpenTelemetry is
// loaded, and each helper costs one check of a module variable.
import type * as otel from '@opentelemetry/api';

export interface TracingHooks {
  api: typeof otel;
  tracer: otel.Tracer;
  /**
   * Whether a trace begun here, with no parent, would be kept, decided without starting a span
   * (the SDK's unsampled span costs its ids and the sampler's arithmetic on every request). Then
   * `keptRoot` is the context to start its span in, so the SDK's sampler keeps it too. Absent
   * when only the SDK's sampler can say (a ratio sampler that is not parent-based, whose children
   * decide by the trace id again).
   */
  rootDecision?: { keep(): boolean; keptRoot: otel.Context };
}

let hooks: TracingHooks | undefined;

/** Called once the SDK is registered; undefined again when it shuts down. */
export function installTracingHooks(installed: TracingHooks | undefined): void {
  hooks = installed;
}

export function tracingHooks(): TracingHooks | undefined {
  return hooks;
}

/** The ids of the span active here, for log lines: the same names the Temporal interceptors use. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  if (!hooks) return {};
  const span = hooks.api.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return hooks.api.isValidTraceId(traceId) ? { trace_id: traceId, span_id: spanId } : {};
}

/**
 * Whether the active span belongs to a trace the sampler kept: its children would be kept too
 * (a span ended already still counts: work it started may outlive it).
 */
export function inSampledTrace(active: TracingHooks): boolean {
  const span = active.api.trace.getActiveSpan();
  return span !== undefined && (span.spanContext().traceFlags & active.api.TraceFlags.SAMPLED) !== 0;
}

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * Runs `work` inside a child span of whatever span is active (an activity's, a request's), ending
 * it when `work` settles; a throw marks the span failed. Without tracing, outside any trace (an
 * outbound call of a read the sampler left out: it would otherwise start a trace of its own) or
 * inside one the sampler left out (its child would record nothing), just runs `work`, in the
 * context it was given: what it starts still follows the unsampled parent.
 */
export async function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: otel.Span | undefined) => Promise<T>,
  kind: 'internal' | 'client' = 'internal',
): Promise<T> {
  const active = hooks;
  if (!active || !inSampledTrace(active)) return work(undefined);
  const { api } = active;
  const spanKind = kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
  const defined: otel.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) defined[key] = value;
  return active.tracer.startActiveSpan(name, { kind: spanKind, attributes: defined }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Records an error on a span, by its name and message only (messages here never carry secrets). */
export function markFailed(span: otel.Span, error: unknown): void {
  const api = hooks?.api;
  if (!api) return;
  const message = error instanceof Error ? error.message : String(error);
  span.recordException({ name: error instanceof Error ? error.name : 'Error', message });
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}
