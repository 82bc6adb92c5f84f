import { expect } from 'chai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { heartbeatEvery, withHeartbeats } from '../../../activities/heartbeats.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../../domain/heartbeats.js';
import { DEFAULT_TURN_HEARTBEAT_TIMEOUT_MS } from '../../../domain/conversations/conversation-workflow.js';

// AMENDMENTS B "13": heartbeats on a timer, at most every 10 s, against a timeout of about 30 s,
// so a dead worker's attempt is retried in about half a minute.
describe('activity heartbeats', () => {
  it('beat a third of the timeout apart, never more than 10 s, never less than 1 s', () => {
    expect(HEARTBEAT_TIMEOUT_MS).to.equal(30_000);
    expect(DEFAULT_TURN_HEARTBEAT_TIMEOUT_MS).to.equal(HEARTBEAT_TIMEOUT_MS);
    expect(heartbeatEvery(undefined)).to.equal(10_000);
    expect(heartbeatEvery(30_000)).to.equal(10_000);
    expect(heartbeatEvery(10 * 60_000)).to.equal(10_000);
    expect(heartbeatEvery(6_000)).to.equal(2_000);
    expect(heartbeatEvery(900)).to.equal(1_000);
  });

  it('keep beating while the work is silent, and stop when it ends', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 3_000 });
    const beats: number[] = [];
    env.on('heartbeat', () => beats.push(Date.now()));
    const result = await env.run(() => withHeartbeats(async () => (await sleep(3_200), 'done')));
    expect(result).to.equal('done');
    expect(beats.length).to.be.at.least(2);
    const after = beats.length;
    await sleep(1_200);
    expect(beats.length, 'no beat after the work ended').to.equal(after);
  });
});
