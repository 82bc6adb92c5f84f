import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { setFlagsFromString } from 'node:v8';
import type { Logger } from '../config/logger.js';

let installed = false;
let sdkMetricsUrl: string | undefined;

/**
 * Routes the Temporal SDK's own logs into Cairn's logger at warn and above, and keeps the
 * workflow isolates small. Must run before the first worker or native connection is created,
 * and only once per process.
 */
export function installTemporalRuntime(logger: Logger, options: { metricsPort?: number } = {}): void {
  if (installed) return;
  installed = true;
  smallYoungGenerationForNewIsolates();
  const sdkLog = logger.child({ component: 'temporal-sdk' });
  // The SDK's worker metrics (task slots, schedule-to-start latency, sticky cache) come from its
  // own Prometheus endpoint on loopback; /metrics appends what it serves.
  const bindAddress = options.metricsPort ? `127.0.0.1:${options.metricsPort}` : undefined;
  if (bindAddress) sdkMetricsUrl = `http://${bindAddress}/metrics`;
  Runtime.install({
    ...(bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {}),
    logger: new DefaultLogger('WARN', (entry) => {
      // The assistant worker serves activities only, by design.
      if (entry.message.startsWith('No workflows registered')) return;
      const level = entry.level.toLowerCase() as Lowercase<LogLevel>;
      const method = level === 'error' ? 'error' : 'warn';
      sdkLog[method]({ event: 'temporal.sdk', ...entry.meta }, entry.message);
    }),
  });
}

/**
 * Each Worker that runs workflows runs them in a worker thread with an isolate of its own, created
 * after this point; their workflow tasks allocate little, and V8's default young generation (up to
 * 2 x 16 MB) left them 5-6 MB larger each when idle. A new isolate reads this flag when it is
 * created; the main thread's heap, set up at process start, keeps its own.
 */
function smallYoungGenerationForNewIsolates(): void {
  setFlagsFromString('--max-semi-space-size=1');
}

/** The Temporal SDK's Prometheus endpoint in this process, when its workers run here. */
export function temporalSdkMetricsUrl(): string | undefined {
  return sdkMetricsUrl;
}
