import { expect } from 'chai';
import { nodeTimeLimits } from '../../../domain/runs/node-time-limits.js';
import { quietAllowanceMs, REPORT_GRACE_MS, staleness } from '../../../web/src/runs/staleness.js';

const MINUTE = 60_000;
const now = Date.parse('2026-11-27T12:00:00.000Z');
const ago = (ms: number) => new Date(now - ms).toISOString();
const limit = (timeoutMs: number | null, retryDelayMs = 0) => ({ nodeId: 'n', timeoutMs, retryDelayMs });
const running = { now, status: 'running' as const, waitingUntil: null };

describe('a stale run (web/src/runs/staleness.ts)', () => {
  it("is a running run quiet for longer than its node's timeout, pause between tries and grace", () => {
    expect(quietAllowanceMs(limit(10 * MINUTE, 30_000))).to.equal(10 * MINUTE + 30_000 + REPORT_GRACE_MS);
    const allowed = 10 * MINUTE + REPORT_GRACE_MS;
    expect(staleness({ ...running, lastEventAt: ago(allowed), limits: [limit(10 * MINUTE)] })).to.deep.equal({
      stale: false,
    });
    expect(
      staleness({ ...running, lastEventAt: ago(allowed + 1), limits: [limit(10 * MINUTE)] }),
    ).to.deep.equal({ stale: true, quietMs: allowed + 1, allowedMs: allowed });
  });

  it('takes the most generous of the running nodes, and none when one may wait for ever', () => {
    const limits = [limit(5 * MINUTE), limit(60 * MINUTE)];
    expect(staleness({ ...running, lastEventAt: ago(30 * MINUTE), limits }).stale).to.equal(false);
    expect(staleness({ ...running, lastEventAt: ago(62 * MINUTE), limits }).stale).to.equal(true);
    expect(
      staleness({ ...running, lastEventAt: ago(48 * 60 * MINUTE), limits: [...limits, limit(null)] }).stale,
    ).to.equal(false);
  });

  it('never claims it while the facts are missing: no limits, no event, an unreadable time', () => {
    const long = ago(48 * 60 * MINUTE);
    expect(staleness({ ...running, lastEventAt: long, limits: [] }).stale).to.equal(false);
    expect(staleness({ ...running, lastEventAt: null, limits: [limit(MINUTE)] }).stale).to.equal(false);
    expect(staleness({ ...running, lastEventAt: 'soon', limits: [limit(MINUTE)] }).stale).to.equal(false);
  });

  it('is never a run that waits (usage limit), is paused at a gate, or has ended', () => {
    const quiet = { now, lastEventAt: ago(48 * 60 * MINUTE), limits: [limit(MINUTE)] };
    expect(
      staleness({ ...quiet, status: 'running', waitingUntil: new Date(now + MINUTE).toISOString() }).stale,
    ).to.equal(false);
    for (const status of ['paused', 'pending', 'completed', 'failed', 'cancelled', 'abandoned'] as const)
      expect(staleness({ ...quiet, status, waitingUntil: null }).stale, status).to.equal(false);
  });
});

describe("a run's node time limits (domain/runs/node-time-limits.ts)", () => {
  it("reads each node's timeout as the engine applies it: its own, the default, or none", () => {
    const limits = nodeTimeLimits({
      name: 'limits',
      nodes: [
        { id: 'quick', bash: 'true', timeout: '90s' },
        { id: 'plain', bash: 'true', depends_on: ['quick'] },
        { id: 'flaky', bash: 'true', retry: { attempts: 3, delay: '2m' }, depends_on: ['plain'] },
        { id: 'gate', approval: { message: 'ok?' }, depends_on: ['flaky'] },
      ],
    });
    expect(limits).to.deep.equal([
      { nodeId: 'quick', timeoutMs: 90_000, retryDelayMs: 0 },
      { nodeId: 'plain', timeoutMs: 60 * MINUTE, retryDelayMs: 0 },
      { nodeId: 'flaky', timeoutMs: 60 * MINUTE, retryDelayMs: 2 * MINUTE },
      { nodeId: 'gate', timeoutMs: null, retryDelayMs: 0 },
    ]);
  });

  it('claims no limit for a definition that no longer validates', () => {
    expect(nodeTimeLimits({ name: 'broken', nodes: [{ id: 'x' }] })).to.deep.equal([]);
    expect(nodeTimeLimits('not a definition')).to.deep.equal([]);
  });
});
