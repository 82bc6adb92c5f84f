import { expect } from 'chai';
import { usageLimitReset } from '../../../domain/assistants/usage-limit.js';

// The assistants' own messages (as their CLIs print them), read at a fixed instant.
const NOW = new Date('2026-11-27T10:00:00Z');
const at = (message: string, localZone = 'UTC', now = NOW) =>
  usageLimitReset(message, now, localZone)?.toISOString();

describe('usage limits: when the assistant says its limit resets', () => {
  it("reads Claude's epoch form", () => {
    expect(at('Claude AI usage limit reached|1749924000')).to.equal(
      new Date(1749924000 * 1000).toISOString(),
    );
  });

  it('reads a time of day in the zone the message names, the next one after now', () => {
    expect(at('Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).')).to.equal(
      '2026-11-27T18:00:00.000Z',
    );
    expect(at("You've hit your session limit · resets 10:30pm (Europe/Berlin)")).to.equal(
      '2026-11-27T21:30:00.000Z',
    );
    // 7am UTC has passed today: tomorrow's.
    expect(at("You've hit your limit · resets 7am (UTC)")).to.equal('2026-11-28T07:00:00.000Z');
  });

  it("reads a time without a zone (or an unknown one) in the machine's zone", () => {
    expect(
      at(
        'Limit reached · resets 5pm (Etc/Unknown) · /upgrade to Max or turn on /extra-usage',
        'America/New_York',
      ),
    ).to.equal('2026-11-27T22:00:00.000Z');
    expect(at('5-hour limit reached ∙ resets 3am', 'UTC')).to.equal('2026-11-28T03:00:00.000Z');
    expect(at('Claude Max usage limit reached. Your limit will reset at 12am.', 'Asia/Tokyo')).to.equal(
      '2026-11-27T15:00:00.000Z',
    );
  });

  it('crosses a change to summer time at the right hour', () => {
    // 01:30 in Berlin (UTC+1); clocks go to 03:00 at 02:00, so 4am is at 02:00 UTC.
    const night = new Date('2026-03-29T00:30:00Z');
    expect(at('Limit reached · resets 4am (Europe/Berlin)', 'UTC', night)).to.equal(
      '2026-03-29T02:00:00.000Z',
    );
  });

  it("reads Codex's relative wait and an HTTP 429's retry-after", () => {
    expect(
      at(
        "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), or try again in 2 hours 5 minutes.",
      ),
    ).to.equal('2026-11-27T12:05:00.000Z');
    expect(at("You've hit your usage limit. Try again in 3 days 1 hour.")).to.equal(
      '2026-11-30T11:00:00.000Z',
    );
    expect(
      at('API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}} retry-after: 30'),
    ).to.equal('2026-11-27T10:00:30.000Z');
  });

  it('answers nothing for other errors, or a limit without a time to wait for', () => {
    expect(at('API Error: 500 {"type":"error","error":{"type":"api_error"}}')).to.equal(undefined);
    expect(at("This request would exceed your account's rate limit. Please try again later.")).to.equal(
      undefined,
    );
    expect(at('the tests reset at 3pm')).to.equal(undefined);
  });
});
