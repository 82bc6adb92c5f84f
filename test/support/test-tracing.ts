import * as api from '@opentelemetry/api';
import { createLogger } from '../../config/logger.js';
import { startTracing, type StartedTracing } from '../../infra/telemetry/start-tracing.js';
import type { TracingSettings } from '../../infra/telemetry/tracing-settings.js';
import type { OtlpReceiver } from './otlp-receiver.js';

/**
 * Tracing started as a test wants it: exported as OTLP/JSON to the receiver, every new trace kept
 * (so what a test finds left out is left out for its parent's sake), its own logs silent.
 */
export function startTestTracing(
  receiver: OtlpReceiver,
  sampling: Pick<TracingSettings, 'sampler' | 'ratio'> = { sampler: 'parentbased_always_on', ratio: 1 },
): StartedTracing {
  return startTracing(
    {
      url: `${receiver.endpoint}/v1/traces`,
      protocol: 'http/json',
      headers: {},
      serviceName: 'cairn',
      serviceVersion: '0.0.0-test',
      ...sampling,
    },
    createLogger({ level: 'silent' }),
  );
}

/** A trace the sampler left out, as an incoming traceparent with flags 00 carries it. */
export const UNSAMPLED_TRACE = {
  traceId: 'ab'.repeat(16),
  spanId: 'cd'.repeat(8),
  traceFlags: api.TraceFlags.NONE,
};
