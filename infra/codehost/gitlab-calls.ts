import { ChatDeliveryRefused } from '../../domain/chat/chat-messenger.js';
import { waitOutRateLimits } from '../chat/rate-limit-waits.js';
import { codeHostWaitMs } from './code-host-client.js';

// How every GitBeaker call is made: GitLab's rate limits waited out, and refusals no retry can
// change turned into ChatDeliveryRefused (see gitlab-requester.ts for why each error has its response).

interface GitbeakerError {
  cause?: { response?: { status: number; headers: Headers } };
}

/** The response GitLab refused a call with, when it answered at all. */
export function responseOf(error: unknown) {
  return (error as GitbeakerError)?.cause?.response;
}

/** The wait GitLab asked for (Retry-After, RateLimit-Reset), in ms; undefined for no wait. */
export const gitlabWait = (error: unknown) => {
  const response = responseOf(error);
  if (!response) return undefined;
  return codeHostWaitMs(response.status, Object.fromEntries(response.headers.entries()));
};

/** A call with GitLab's rate limits waited out; a refusal no retry can change becomes ChatDeliveryRefused. */
export async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await waitOutRateLimits(work, gitlabWait);
  } catch (error) {
    const status = responseOf(error)?.status;
    if (status === 401 || status === 403 || status === 404 || status === 422) {
      throw new ChatDeliveryRefused(
        `GitLab refused the call (${status}): ${(error as Error).message}`,
        'gitlab',
      );
    }
    throw error;
  }
}
