import { expect } from 'chai';
import {
  readyNodes,
  topologicalOrder,
  upstreamOf,
  type NodeState,
  type TriggerRule,
} from '../../../domain/workflow-definitions/index.js';
import { definition } from './helpers.js';

const diamond = definition({
  name: 'diamond',
  nodes: [
    { id: 'd', depends_on: ['b', 'c'], prompt: 'd' },
    { id: 'b', depends_on: ['a'], prompt: 'b' },
    { id: 'c', depends_on: ['a'], prompt: 'c' },
    { id: 'a', prompt: 'a' },
    { id: 'e', prompt: 'e' },
  ],
});

function joinOf(rule: TriggerRule) {
  return definition({
    name: 'join',
    nodes: [
      { id: 'x', prompt: 'x' },
      { id: 'y', prompt: 'y' },
      { id: 'z', depends_on: ['x', 'y'], trigger_rule: rule, prompt: 'z' },
      { id: 'after', depends_on: ['z'], prompt: 'after' },
    ],
  });
}

describe('workflow definitions: planning', () => {
  it('orders nodes after their dependencies, keeping the written order between independent ones', () => {
    expect(topologicalOrder(diamond)).to.deep.equal(['a', 'e', 'b', 'c', 'd']);
  });

  it('lists what is upstream of a node', () => {
    expect(upstreamOf(diamond, 'd')).to.deep.equal(['a', 'b', 'c']);
    expect(upstreamOf(diamond, 'b')).to.deep.equal(['a']);
    expect(upstreamOf(diamond, 'a')).to.deep.equal([]);
    expect(upstreamOf(diamond, 'nope')).to.deep.equal([]);
  });

  it('starts every node without dependencies first', () => {
    expect(readyNodes(diamond, {})).to.deep.equal({ start: ['a', 'e'], skip: [] });
  });

  it('waits for running dependencies and starts nodes as theirs succeed', () => {
    expect(readyNodes(diamond, { a: 'running', e: 'running' })).to.deep.equal({ start: [], skip: [] });
    expect(readyNodes(diamond, { a: 'succeeded', e: 'running' })).to.deep.equal({
      start: ['b', 'c'],
      skip: [],
    });
    expect(readyNodes(diamond, { a: 'succeeded', b: 'succeeded', c: 'running' })).to.deep.equal({
      start: ['e'],
      skip: [],
    });
    expect(
      readyNodes(diamond, { a: 'succeeded', b: 'succeeded', c: 'succeeded', e: 'succeeded' }),
    ).to.deep.equal({
      start: ['d'],
      skip: [],
    });
  });

  it('all_success: skips as soon as one dependency failed or was skipped, and the skip cascades', () => {
    expect(readyNodes(diamond, { a: 'failed', e: 'succeeded' })).to.deep.equal({
      start: [],
      skip: [
        { id: 'b', reason: 'dependency "a" failed' },
        { id: 'c', reason: 'dependency "a" failed' },
        { id: 'd', reason: 'dependency "b" skipped' },
      ],
    });
    const join = joinOf('all_success');
    expect(readyNodes(join, { x: 'failed', y: 'running' }).skip.map((s) => s.id)).to.deep.equal([
      'z',
      'after',
    ]);
  });

  const outcomes: [TriggerRule, NodeState, NodeState, 'start' | 'skip' | 'wait'][] = [
    ['all_success', 'succeeded', 'succeeded', 'start'],
    ['all_success', 'succeeded', 'running', 'wait'],
    ['all_success', 'succeeded', 'skipped', 'skip'],
    ['all_success', 'failed', 'pending', 'skip'],
    ['one_success', 'succeeded', 'failed', 'start'],
    ['one_success', 'skipped', 'succeeded', 'start'],
    ['one_success', 'succeeded', 'running', 'wait'],
    ['one_success', 'failed', 'running', 'wait'],
    ['one_success', 'failed', 'skipped', 'skip'],
    ['one_success', 'failed', 'failed', 'skip'],
    ['all_done', 'failed', 'skipped', 'start'],
    ['all_done', 'succeeded', 'failed', 'start'],
    ['all_done', 'failed', 'running', 'wait'],
    ['all_done', 'pending', 'succeeded', 'wait'],
  ];
  for (const [rule, x, y, expected] of outcomes) {
    it(`${rule}: dependencies ${x} and ${y} → ${expected}`, () => {
      const result = readyNodes(joinOf(rule), { x, y });
      expect(result.start.includes('z')).to.equal(expected === 'start');
      expect(result.skip.some((s) => s.id === 'z')).to.equal(expected === 'skip');
    });
  }

  it('one_success says why it skipped', () => {
    expect(readyNodes(joinOf('one_success'), { x: 'failed', y: 'skipped' }).skip[0]).to.deep.equal({
      id: 'z',
      reason: 'no dependency succeeded',
    });
  });

  it('all_done runs after a skipped branch, so a cleanup step still happens', () => {
    const wf = definition({
      name: 'cleanup',
      nodes: [
        { id: 'a', bash: 'false' },
        { id: 'b', depends_on: ['a'], prompt: 'b' },
        { id: 'cleanup', depends_on: ['b'], trigger_rule: 'all_done', bash: 'rm -rf "$ARTIFACTS_DIR/tmp"' },
      ],
    });
    expect(readyNodes(wf, { a: 'failed' })).to.deep.equal({
      start: ['cleanup'],
      skip: [{ id: 'b', reason: 'dependency "a" failed' }],
    });
  });

  it('evaluates when conditions when given outputs, skipping nodes whose condition is false', () => {
    const wf = definition({
      name: 'triage',
      nodes: [
        { id: 'classify', prompt: 'classify', output_format: { type: 'object' } },
        { id: 'fix', depends_on: ['classify'], when: "$classify.output.kind == 'bug'", prompt: 'fix' },
        { id: 'plan', depends_on: ['classify'], when: "$classify.output.kind != 'bug'", prompt: 'plan' },
        { id: 'report', depends_on: ['fix', 'plan'], trigger_rule: 'one_success', prompt: 'report' },
      ],
    });
    const states = { classify: 'succeeded' } as const;
    expect(readyNodes(wf, states, { classify: { kind: 'bug' } })).to.deep.equal({
      start: ['fix'],
      skip: [{ id: 'plan', reason: "its condition is false: $classify.output.kind != 'bug'" }],
    });
    expect(readyNodes(wf, states)).to.deep.equal({ start: ['fix', 'plan'], skip: [] });
    expect(readyNodes(wf, { classify: 'succeeded', fix: 'succeeded', plan: 'skipped' }, {})).to.deep.equal({
      start: ['report'],
      skip: [],
    });
  });

  it('leaves nodes that are running or ended alone', () => {
    expect(
      readyNodes(diamond, { a: 'succeeded', b: 'running', c: 'failed', d: 'skipped', e: 'succeeded' }),
    ).to.deep.equal({ start: [], skip: [] });
  });
});
