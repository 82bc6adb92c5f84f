// Every chat platform answers "too many requests" with how long to wait (Telegram's and Discord's
// retry_after, Slack's Retry-After). A refused call was not delivered, so waiting and calling
// again delivers it once.

/** Waits longer than this are not waited out here: the activity fails and Temporal retries later. */
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

export async function waitOutRateLimits<T>(
  call: () => Promise<T>,
  readWait: RateLimitReader = retryAfterOf,
): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await call();
    } catch (error) {
      const waitMs = readWait(error);
      if (waitMs === undefined || waits >= MAX_WAITS || waitMs > MAX_WAIT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
