import type { App, Receiver } from '@slack/bolt';
import { SocketModeClient, type LogLevel, type Logger as SlackLogger } from '@slack/socket-mode';

/** Slack re-sends an envelope that is not acknowledged within 3 seconds; ours go a little before. */
export const ACK_DEADLINE_MS = 2_500;

interface SlackEventArgs {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  type: string;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}

export interface AckAfterHandlingOptions {
  appToken: string;
  slackApiUrl: string;
  logger: SlackLogger;
  logLevel: LogLevel;
}

/**
 * Socket Mode for a Bolt app, with one change: Bolt's own receiver acknowledges an Events API
 * envelope before its listener runs, so a crash in between would lose the message (Slack never
 * sends an acknowledged envelope again). This one acknowledges once the listener has finished,
 * i.e. once the message is stored, and not at all when it failed, so Slack delivers it again;
 * a listener still busy near the 3 s deadline (a command that clones) is acknowledged then.
 * Interactive payloads keep Bolt's rule: their listener acknowledges itself.
 */
export class AckAfterHandlingReceiver implements Receiver {
  readonly client: SocketModeClient;
  private app: App | undefined;

  constructor(options: AckAfterHandlingOptions) {
    this.client = new SocketModeClient({
      appToken: options.appToken,
      logger: options.logger,
      logLevel: options.logLevel,
      clientOptions: { slackApiUrl: options.slackApiUrl },
    });
    this.client.on('slack_event', (args: SlackEventArgs) => void this.dispatch(args));
  }

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<unknown> {
    return this.client.start();
  }

  stop(): Promise<unknown> {
    return this.client.disconnect();
  }

  private async dispatch(args: SlackEventArgs): Promise<void> {
    let acked = false;
    const ackOnce = async (response?: Record<string, unknown>) => {
      if (acked) return;
      acked = true;
      await args.ack(response);
    };
    const event = args.type === 'events_api';
    const deadline = setTimeout(() => void ackOnce().catch(() => undefined), ACK_DEADLINE_MS);
    try {
      await this.app?.processEvent({
        body: args.body,
        // Bolt calls an event's ack before its listener: that call must not reach Slack yet.
        ack: event ? async () => undefined : ackOnce,
        ...(args.retry_num !== undefined ? { retryNum: args.retry_num } : {}),
        ...(args.retry_reason !== undefined ? { retryReason: args.retry_reason } : {}),
      });
      if (event) await ackOnce();
    } catch {
      // Bolt's error handler logged it; unacknowledged, the envelope comes again.
    } finally {
      clearTimeout(deadline);
    }
  }
}
