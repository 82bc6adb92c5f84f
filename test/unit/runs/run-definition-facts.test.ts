import { expect } from 'chai';
import { nodeTimeLimits } from '../../../domain/runs/node-time-limits.js';
import { runDefinitionFacts } from '../../../domain/runs/run-definition-facts.js';

describe("what the run page reads from a run's definition (domain/runs/run-definition-facts.ts)", () => {
  const definition = {
    name: 'facts',
    nodes: [
      { id: 'plan', bash: 'true', timeout: '90s' },
      { id: 'build', bash: 'true', depends_on: ['plan'] },
      { id: 'test', bash: 'true', depends_on: ['plan'] },
      { id: 'ship', approval: { message: 'ok?' }, depends_on: ['test', 'build'] },
    ],
  };

  it('lists every node in order with what it depends on, as written, and the same limits as nodeTimeLimits', () => {
    const facts = runDefinitionFacts(definition);
    expect(facts.nodes).to.deep.equal([
      { nodeId: 'plan', dependsOn: [] },
      { nodeId: 'build', dependsOn: ['plan'] },
      { nodeId: 'test', dependsOn: ['plan'] },
      { nodeId: 'ship', dependsOn: ['test', 'build'] },
    ]);
    expect(facts.nodeLimits).to.deep.equal(nodeTimeLimits(definition));
    expect(facts.nodeLimits.map((limit) => limit.timeoutMs)).to.deep.equal([
      90_000,
      3_600_000,
      3_600_000,
      null,
    ]);
  });

  it('has neither nodes nor limits for a definition that no longer validates', () => {
    for (const broken of [{ name: 'broken', nodes: [{ id: 'x' }] }, 'not a definition', null])
      expect(runDefinitionFacts(broken)).to.deep.equal({ nodeLimits: [], nodes: [] });
  });
});
