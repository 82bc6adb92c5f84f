import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../config/logger.js';

let installed = false;

/**
 * Routes the Temporal SDK's own logs into Cairn's logger at warn and above. Must run before the
 * first worker or native connection is created, and only once per process.
 */
export function installTemporalRuntime(logger: Logger): void {
  if (installed) return;
  installed = true;
  const sdkLog = logger.child({ component: 'temporal-sdk' });
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      // The assistant worker serves activities only, by design.
      if (entry.message.startsWith('No workflows registered')) return;
      const level = entry.level.toLowerCase() as Lowercase<LogLevel>;
      const method = level === 'error' ? 'error' : 'warn';
      sdkLog[method]({ event: 'temporal.sdk', ...entry.meta }, entry.message);
    }),
  });
}
