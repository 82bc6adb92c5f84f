import type { CodeHostWorkInput } from '../../domain/codehost/code-host-work.js';

export interface StartQueueOptions {
  /** Starts one request's workflow (an already started one is not an error). */
  start(input: CodeHostWorkInput): Promise<void>;
  /** Notes that these requests' workflows are started, in one write. */
  markStarted(inputs: CodeHostWorkInput[]): Promise<void>;
  /** A start or the note failed: the row stays unstarted and the sweep starts it later. */
  onError(error: unknown, inputs: CodeHostWorkInput[]): void;
  /** Starts in flight at once. */
  parallel?: number;
  /** How long a start may wait for the webhooks being received to be answered. */
  maxDelayMs?: number;
}

/**
 * The workflow starts of recorded requests, after their answers and off the webhooks' way: each
 * start is a gRPC call whose work shares the event loop with the requests still being answered,
 * so the queue waits until no webhook is in flight (at most `maxDelayMs`, so a steady stream
 * cannot hold it back), then starts a batch of `parallel`, notes them started in one write, and
 * looks again. Nothing here is durable on its own: a request whose start is lost (the process
 * ends first) has a row without `started_at`, which the sweep starts (code-host-inbox.ts).
 */
export class StartQueue {
  private readonly queued = new Map<string, { input: CodeHostWorkInput; since: number }>();
  private inFlight = 0;
  private draining = false;
  private wake?: () => void;
  private readonly parallel: number;
  private readonly maxDelayMs: number;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: StartQueueOptions) {
    this.parallel = options.parallel ?? 8;
    this.maxDelayMs = options.maxDelayMs ?? 250;
  }

  /** A webhook is being received: call the answer once its response is done. */
  receiving(): () => void {
    this.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (this.inFlight === 0) this.wake?.();
    };
  }

  /** Queues a request's start; one already queued is not queued twice. */
  add(input: CodeHostWorkInput): void {
    const key = `${input.platform}\n${input.requestKey}`;
    if (!this.queued.has(key)) this.queued.set(key, { input, since: Date.now() });
    if (!this.draining) void this.drain();
  }

  /** Resolves once nothing is queued or starting (tests, shutdown). */
  idle(): Promise<void> {
    if (!this.draining && this.queued.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queued.size > 0) {
        await this.quiet();
        const batch = [...this.queued.entries()].slice(0, this.parallel);
        for (const [key] of batch) this.queued.delete(key);
        await this.startAll(batch.map(([, entry]) => entry.input));
      }
    } finally {
      this.draining = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves when no webhook is in flight, or when the oldest queued start has waited long enough. */
  private quiet(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    const oldest = Math.min(...[...this.queued.values()].map((entry) => entry.since));
    const waitMs = Math.max(0, oldest + this.maxDelayMs - Date.now());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.wake = done;
    });
  }

  private async startAll(inputs: CodeHostWorkInput[]): Promise<void> {
    const started: CodeHostWorkInput[] = [];
    await Promise.all(
      inputs.map(async (input) => {
        try {
          await this.options.start(input);
          started.push(input);
        } catch (error) {
          this.options.onError(error, [input]);
        }
      }),
    );
    if (started.length === 0) return;
    try {
      await this.options.markStarted(started);
    } catch (error) {
      this.options.onError(error, started);
    }
  }
}
