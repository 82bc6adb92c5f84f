// The worker's share of tracing, loaded only when tracing is on: activity spans (RunActivity)
// continuing the workflow's trace, and the sink through which the workflow sandbox's spans reach
// the process's span processor.
import { join } from 'node:path';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { PACKAGE_ROOT } from '../config/package-root.js';
import type { StartedTracing } from '../infra/telemetry/start-tracing.js';

/** Bundled into the workflow code (worker/workflow-bundle.ts) when tracing is on. */
export const TRACING_WORKFLOW_INTERCEPTORS = join(PACKAGE_ROOT, 'workflows/tracing-interceptors.ts');

export interface WorkerTracing {
  activityInterceptors: ActivityInterceptorsFactory;
  sinks: InjectedSinks<OpenTelemetrySinks>;
}

export function workerTracing(tracing: StartedTracing): WorkerTracing {
  return {
    activityInterceptors: (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
