import type { Logger } from '../../config/logger.js';

type Closer = { name: string; close: () => Promise<void> | void };

/**
 * Everything a command started, stopped in reverse order on SIGTERM/SIGINT or on a fatal error,
 * each step bounded so one stuck part cannot keep the process alive.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private stopping?: Promise<void>;

  constructor(private readonly logger: Logger) {}

  /** Registers something to stop; the last one registered stops first. */
  add(name: string, close: () => Promise<void> | void): void {
    this.closers.push({ name, close });
  }

  stop(reason: string, timeoutPerStepMs = 45_000): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info({ event: 'process.stopping', reason }, `stopping (${reason})`);
      for (const closer of [...this.closers].reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutPerStepMs);
        });
        try {
          const outcome = await Promise.race([Promise.resolve(closer.close()), timeout]);
          if (outcome === 'timeout')
            this.logger.warn({ event: 'process.stop_timeout', part: closer.name }, 'gave up waiting');
        } catch (error) {
          this.logger.error({ event: 'process.stop_failed', part: closer.name, err: error }, 'stop failed');
        } finally {
          clearTimeout(timer);
        }
      }
      this.logger.info({ event: 'process.stopped' }, 'stopped');
    })();
    return this.stopping;
  }

  /** Stops everything on the first SIGTERM or SIGINT, then exits; a second signal exits at once. */
  stopOnSignals(exit: (code: number) => void = (code) => process.exit(code)): void {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) exit(130);
      received = true;
      void this.stop(signal).then(() => exit(0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
}
