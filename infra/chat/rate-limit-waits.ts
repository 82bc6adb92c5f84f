// Every chat platform answers "too many requests" with how long to wait (Telegram's and Discord's
// retry_after, Slack's Retry-After). A refused call was not delivered, so waiting and calling
// again delivers it once.
import { withSpan } from '../../config/tracing.js';
import { PlatformAsksToWait } from '../../domain/chat/chat-messenger.js';

/** Waits longer than this are not waited out here: the activity fails and Temporal retries it then. */
const MAX_WAIT_MS = 60_000;
const MAX_WAITS = 5;

/** The wait a platform asked for, in ms, when `error` is a rate limit; undefined otherwise. */
export type RateLimitReader = (error: unknown) => number | undefined;

/** Telegram (grammy's GrammyError) and Discord both put retry_after in seconds on the error. */
export const retryAfterOf: RateLimitReader = (error) => {
  const candidate = error as {
    error_code?: number;
    parameters?: { retry_after?: number };
    retryAfter?: number;
  };
  if (candidate?.error_code === 429 && typeof candidate.parameters?.retry_after === 'number') {
    return candidate.parameters.retry_after * 1000;
  }
  return undefined;
};

/**
 * A call to a platform's API as a client span, when inside a sampled trace (`slack chat.update`):
 * for the clients that wait out rate limits themselves (Slack's Web API client, Discord's REST).
 */
export function tracedPlatformCall<T>(spanName: string, call: () => Promise<T>): Promise<T> {
  return withSpan(spanName, {}, () => call(), 'client');
}

/**
 * Every call to Telegram's or a code host's API goes through here, so here it becomes a client
 * span (`platform call`, or the name given) when tracing is on, waits included.
 */
export async function waitOutRateLimits<T>(
  call: () => Promise<T>,
  readWait: RateLimitReader = retryAfterOf,
  spanName = 'platform call',
): Promise<T> {
  return withSpan(
    spanName,
    {},
    async (span) => {
      for (let waits = 0; ; waits++) {
        try {
          return await call();
        } catch (error) {
          const waitMs = readWait(error);
          if (waitMs === undefined) throw error;
          if (waits >= MAX_WAITS || waitMs > MAX_WAIT_MS)
            throw new PlatformAsksToWait(waitMs, { cause: error });
          span?.setAttribute('cairn.rate_limit_waits', waits + 1);
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
      }
    },
    'client',
  );
}
