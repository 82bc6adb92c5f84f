import { expect } from 'chai';
import {
  applyRunEvent,
  emptyRunView,
  gateButtonData,
  gateText,
  parseGateButton,
  rejectReasonPrompt,
  runIdOfReasonPrompt,
  runProgressText,
  type RunEventLike,
} from '../../../domain/chat/run-view.js';

const RUN = '0b7c4a1e-5f7d-4c1a-9e43-2f1f0d2c9a11';
let nextId = 1;
const event = (
  type: string,
  nodeId: string | null,
  payload: Record<string, unknown> = {},
  actor: string | null = null,
): RunEventLike => ({
  id: nextId++,
  type,
  nodeId,
  actor,
  payload,
});

describe('chat/run view (a run started from a chat)', () => {
  it('marks each node as it moves and sums the cost', () => {
    const view = [
      event('run_started', null),
      event('node_started', 'plan'),
      event('node_completed', 'plan', { durationMs: 12_400, costUsd: 0.0123 }),
      event('node_started', 'build'),
      event('node_failed', 'build', { error: 'exit 2' }),
      event('node_skipped', 'ship'),
      event('run_failed', null, { error: 'build failed' }),
    ].reduce(applyRunEvent, emptyRunView(RUN, 'release'));
    expect(runProgressText(view)).to.equal(
      [
        `Run **release** \`${RUN}\`: ❌ failed`,
        '✅ plan (12 s)',
        '❌ build',
        '⏭ ship',
        'Cost: $0.0123',
        'Reason: build failed',
      ].join('\n'),
    );
  });

  it("links the run's Temporal execution last, kept however many nodes the run has", () => {
    const url = `https://temporal.example.test/namespaces/default/workflows/run-${RUN}`;
    const small = applyRunEvent(emptyRunView(RUN, 'release', url), event('node_started', 'plan'));
    expect(runProgressText(small)).to.equal(
      `Run **release** \`${RUN}\`: running\n⏳ plan\n[Open in Temporal](${url})`,
    );
    const nodes = Array.from({ length: 300 }, (_, index) => event('node_started', `node-${index}`));
    const big = runProgressText(nodes.reduce(applyRunEvent, emptyRunView(RUN, 'release', url)));
    expect(big.length).to.be.at.most(1_900);
    expect(big.endsWith(`…\n[Open in Temporal](${url})`)).to.equal(true);
    expect(runProgressText(emptyRunView(RUN, 'release'))).to.not.include('Temporal');
  });

  it('gives each ask of a gate a message, and a decision to the oldest gate still asking', () => {
    let view = emptyRunView(RUN, 'gated');
    view = applyRunEvent(view, event('approval_requested', 'gate', { message: 'Ship it?' }));
    expect(runProgressText(view)).to.contain('⏸ gate');
    expect(gateText(view, view.gates[0]!)).to.contain('Approval needed').and.contain('Ship it?');
    view = applyRunEvent(
      view,
      event('approval_received', null, { decision: 'reject', reason: 'tests red' }, 'telegram:1'),
    );
    view = applyRunEvent(view, event('approval_requested', 'gate', { message: 'Ship it now?' }));
    view = applyRunEvent(
      view,
      event('approval_received', null, { decision: 'approve', comment: null }, 'web'),
    );
    expect(view.gates).to.have.length(2);
    expect(gateText(view, view.gates[0]!)).to.match(/❌ Rejected by telegram:1: tests red$/);
    expect(gateText(view, view.gates[1]!)).to.match(/✅ Approved by web$/);
  });

  it('reads back its own button data and reason question, and nothing else', () => {
    expect(parseGateButton(gateButtonData('approve', RUN, '123'))).to.deep.equal({
      decision: 'approve',
      runId: RUN,
      gateKey: '123',
    });
    expect(parseGateButton(gateButtonData('reject', RUN, '9'))).to.deep.include({ decision: 'reject' });
    expect(Buffer.byteLength(gateButtonData('approve', RUN, '999999999999999'))).to.be.at.most(64);
    expect(parseGateButton(`approve:${RUN}`)).to.equal(undefined);
    expect(parseGateButton(`delete:${RUN}`)).to.equal(undefined);
    expect(parseGateButton('approve:../../etc')).to.equal(undefined);
    // Telegram hands back the question as shown: without the markdown.
    expect(runIdOfReasonPrompt(rejectReasonPrompt(RUN).replace(/`/g, ''))).to.equal(RUN);
    expect(runIdOfReasonPrompt(rejectReasonPrompt(RUN))).to.equal(RUN);
    expect(runIdOfReasonPrompt('Why not?')).to.equal(undefined);
    // An answer that merely starts like the question is not one.
    expect(runIdOfReasonPrompt(`${rejectReasonPrompt(RUN)} And more.`)).to.equal(undefined);
  });
});
