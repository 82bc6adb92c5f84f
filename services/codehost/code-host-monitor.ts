import type { AdapterState } from '../../domain/chat/adapter-state.js';
import { CODE_HOST_PLATFORMS, type CodeHostPlatform } from '../../domain/chat/chat-address.js';
import type { Environment } from '../../config/environment.js';
import type { Logger } from '../../config/logger.js';
import { codeHostClientFor } from '../../infra/codehost/code-host-clients.js';

const VARIABLES: Record<CodeHostPlatform, { secret: string; token: string }> = {
  github: { secret: 'WEBHOOK_SECRET', token: 'GITHUB_TOKEN' },
  gitlab: { secret: 'GITLAB_WEBHOOK_SECRET', token: 'GITLAB_TOKEN' },
};

/** How often a receiving code host's API is asked who the token is. */
const CHECK_INTERVAL_MS = 5 * 60_000;

/**
 * The real state of each code host for /api/health: not configured without its webhook secret;
 * failing (with the reason) without a token, or when the platform refuses the token or cannot be
 * reached; ready, as the token's user, once the platform answered. Checked at start and every
 * five minutes; a failing platform never takes the service down.
 */
export class CodeHostMonitor {
  private readonly current = new Map<CodeHostPlatform, AdapterState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly environment: Environment,
    private readonly logger: Logger,
  ) {}

  /** Platforms whose webhooks are received (their secret is set). */
  get platforms(): CodeHostPlatform[] {
    return CODE_HOST_PLATFORMS.filter((platform) => this.environment[platform].webhookSecret);
  }

  states(): Partial<Record<CodeHostPlatform, AdapterState>> {
    return Object.fromEntries(this.current);
  }

  /**
   * Checks every receiving platform now and then periodically, without holding up the start (a
   * platform that does not answer shows `connecting` meanwhile). The first check is returned.
   */
  start(): Promise<void> {
    for (const platform of this.platforms)
      this.set(platform, 'connecting', 'asking the API who the token is');
    if (this.platforms.length === 0) return Promise.resolve();
    this.timer = setInterval(() => void this.checkAll(), CHECK_INTERVAL_MS);
    this.timer.unref();
    return this.checkAll();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async checkAll(): Promise<void> {
    await Promise.all(this.platforms.map((platform) => this.check(platform)));
  }

  private async check(platform: CodeHostPlatform): Promise<void> {
    // A client of its own each time: the reply clients keep the login they learnt once.
    const client = await codeHostClientFor(this.environment, platform);
    if (!client) {
      this.set(
        platform,
        'failing',
        `${VARIABLES[platform].token} is not set${platform === 'github' ? ' (nor GITHUB_APP_ID with its key)' : ''}: requests are recorded but not answered`,
      );
      return;
    }
    try {
      this.set(platform, 'ready', `as @${await client.botLogin()}`);
    } catch (error) {
      const reason = (error as Error).message.slice(0, 300);
      this.set(platform, 'failing', `the ${platform} API did not answer who the token is: ${reason}`);
    }
  }

  private set(platform: CodeHostPlatform, status: AdapterState['status'], detail: string): void {
    const previous = this.current.get(platform);
    if (previous?.status === status && previous.detail === detail) return;
    if (status === 'failing') this.logger.warn({ event: 'code_host.failing', platform, detail }, detail);
    this.current.set(platform, { status, detail, since: new Date().toISOString() });
  }
}
