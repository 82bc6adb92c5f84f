import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { platformFailure } from '../../../activities/platform-failure.js';
import { ChatDeliveryRefused, PlatformAsksToWait } from '../../../domain/chat/chat-messenger.js';
import { waitOutRateLimits } from '../../../infra/chat/rate-limit-waits.js';

class RateLimited extends Error {
  constructor(readonly waitMs: number) {
    super(`429, come back in ${waitMs} ms`);
  }
}
const readWait = (error: unknown) => (error instanceof RateLimited ? error.waitMs : undefined);

describe('platform rate limits', () => {
  it('waits out a short wait in place and calls again, once', async () => {
    let calls = 0;
    const answer = await waitOutRateLimits(async () => {
      calls += 1;
      if (calls === 1) throw new RateLimited(5);
      return 'delivered';
    }, readWait);
    expect(answer).to.equal('delivered');
    expect(calls).to.equal(2);
  });

  it('hands a wait of minutes to Temporal: the activity is retried after exactly that wait', async () => {
    const limit = new RateLimited(120_000);
    let calls = 0;
    const failure = await waitOutRateLimits(async () => {
      calls += 1;
      throw limit;
    }, readWait).catch((error: unknown) => error);
    expect(calls).to.equal(1);
    expect(failure).to.be.instanceOf(PlatformAsksToWait);
    expect((failure as PlatformAsksToWait).waitMs).to.equal(120_000);
    expect((failure as PlatformAsksToWait).cause).to.equal(limit);

    const thrown = platformFailure(failure, 'chat_refused');
    expect(thrown).to.be.instanceOf(ApplicationFailure);
    expect(thrown).to.include({
      type: 'platform_asks_to_wait',
      nonRetryable: false,
      nextRetryDelay: 120_000,
    });
    expect((thrown as ApplicationFailure).cause).to.equal(limit);
  });

  it('ends the activity on a refusal no retry changes, and leaves other errors to the retry policy', () => {
    const refused = platformFailure(
      new ChatDeliveryRefused('the bot left the chat', 'telegram'),
      'chat_refused',
    );
    expect(refused).to.be.instanceOf(ApplicationFailure);
    expect(refused).to.include({ type: 'chat_refused', nonRetryable: true });
    const outage = new Error('502 Bad Gateway');
    expect(platformFailure(outage, 'chat_refused')).to.equal(outage);
    expect(platformFailure(new RateLimited(1), 'code_host_refused')).to.be.instanceOf(RateLimited);
  });
});
