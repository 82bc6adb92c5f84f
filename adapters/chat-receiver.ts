import type { AdapterState } from '../domain/chat/adapter-state.js';
import { AdapterStatusHolder } from './adapter-status.js';

/**
 * What every chat adapter shares: a receiving loop started once, a state for /api/health, and a
 * stop that ends the loop and lets go of the connection.
 */
export abstract class ChatReceiver {
  protected readonly status = new AdapterStatusHolder();
  protected readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  get state(): AdapterState {
    return this.status.state;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.interrupt();
    await this.loop;
    await this.release();
    this.status.set('stopped');
  }

  /** Receives until `stopping` aborts, reconnecting with backoff. */
  protected abstract run(): Promise<void>;

  /** Ends what the loop is waiting on (a client to destroy), so that it returns. */
  protected async interrupt(): Promise<void> {}

  /** Lets go of what the loop left running (an app's socket). */
  protected async release(): Promise<void> {}
}
