import { expect } from 'chai';
import { codeHostWaitMs } from '../../../infra/codehost/code-host-client.js';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const epoch = (ms: number) => String(Math.floor(ms / 1000));

describe('codeHostWaitMs: the waits GitHub and GitLab ask for', () => {
  it('reads Retry-After in seconds or as an HTTP date on a 429', () => {
    expect(codeHostWaitMs(429, { 'retry-after': '7' }, NOW)).to.equal(7_000);
    const date = new Date(NOW + 12_000).toUTCString();
    expect(codeHostWaitMs(429, { 'retry-after': date }, NOW)).to.equal(12_000);
  });

  it('reads Retry-After on a 5xx (maintenance), and leaves a bare 5xx to the retry backoff', () => {
    expect(codeHostWaitMs(503, { 'retry-after': '30' }, NOW)).to.equal(30_000);
    expect(codeHostWaitMs(502, {}, NOW)).to.equal(undefined);
    expect(codeHostWaitMs(500, { 'ratelimit-remaining': '0', 'ratelimit-reset': epoch(NOW) }, NOW)).to.equal(
      undefined,
    );
  });

  it("waits for GitHub's x-ratelimit-reset and GitLab's RateLimit-Reset when the limit is used up", () => {
    const github = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch(NOW + 20_000) };
    expect(codeHostWaitMs(403, github, NOW)).to.equal(21_000);
    const gitlab = { 'ratelimit-remaining': '0', 'ratelimit-reset': epoch(NOW + 5_000) };
    expect(codeHostWaitMs(429, gitlab, NOW)).to.equal(6_000);
    // A reset already past still waits the spare second.
    expect(codeHostWaitMs(429, { ...gitlab, 'ratelimit-reset': epoch(NOW - 9_000) }, NOW)).to.equal(1_000);
  });

  it('does not wait on a refusal that is not a limit', () => {
    expect(codeHostWaitMs(403, { 'x-ratelimit-remaining': '4999' }, NOW)).to.equal(undefined);
    expect(codeHostWaitMs(404, { 'retry-after': '5' }, NOW)).to.equal(undefined);
    expect(codeHostWaitMs(429, { 'retry-after': 'soon' }, NOW)).to.equal(undefined);
    expect(codeHostWaitMs(undefined, {}, NOW)).to.equal(undefined);
  });
});
