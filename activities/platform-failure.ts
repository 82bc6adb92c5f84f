import { ApplicationFailure } from '@temporalio/activity';
import { ChatDeliveryRefused, PlatformAsksToWait } from '../domain/chat/chat-messenger.js';

/**
 * What an activity that called a chat platform or a code host throws for a platform's answer:
 * a refusal no retry can change ends the activity (`refusedType`); a request to come back in
 * minutes is retried by Temporal after exactly that wait, not after its usual backoff; anything
 * else goes on to the retry policy as it is.
 */
export function platformFailure(error: unknown, refusedType: string): unknown {
  if (error instanceof ChatDeliveryRefused)
    return ApplicationFailure.nonRetryable(error.message, refusedType);
  if (error instanceof PlatformAsksToWait) {
    return ApplicationFailure.create({
      message: error.message,
      type: 'platform_asks_to_wait',
      nextRetryDelay: error.waitMs,
      cause: error.cause instanceof Error ? error.cause : undefined,
    });
  }
  return error;
}
