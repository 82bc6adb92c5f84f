import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { StartedTracing } from '../../infra/telemetry/start-tracing.js';
import { tracingSettings, type ProcessRole } from '../../infra/telemetry/tracing-settings.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * Starts tracing when an OTLP endpoint is set. Otherwise nothing of OpenTelemetry is loaded: the
 * SDK, the exporters and the Temporal interceptors are all imported from here, on demand.
 * Registered first, it is stopped last, after the servers and workers whose spans it exports.
 */
export async function startTracingIfSet(
  context: CairnContext,
  role: ProcessRole,
  lifecycle: Lifecycle,
): Promise<StartedTracing | undefined> {
  const settings = tracingSettings(context.environment.tracing, role, context.pkg.version);
  if (!settings) return undefined;
  const { startTracing } = await import('../../infra/telemetry/start-tracing.js');
  const tracing = startTracing(settings, context.logger);
  lifecycle.add('tracing', () => tracing.shutdown());
  return tracing;
}

/** The client interceptor that starts each workflow (and signals it) inside the caller's trace. */
export async function tracingClientInterceptors(): Promise<WorkflowClientInterceptor[]> {
  const { OpenTelemetryWorkflowClientInterceptor } =
    await import('@temporalio/interceptors-opentelemetry/lib/client/index.js');
  return [new OpenTelemetryWorkflowClientInterceptor()];
}
