import type { Logger } from '../config/logger.js';

/**
 * Runs a task now and then every `intervalMs` until stopped; a failing round is logged and the
 * next one tries again. stop() waits for a round in progress.
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  options: { intervalMs: number; logger: Logger; failureEvent: string },
): { stop(): Promise<void> } {
  let round: Promise<unknown> = Promise.resolve();
  const tick = () => {
    round = task().catch((error: unknown) => {
      options.logger.warn({ event: options.failureEvent, err: (error as Error).message });
    });
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await round;
    },
  };
}
