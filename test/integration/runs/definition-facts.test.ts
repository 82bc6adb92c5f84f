import { expect } from 'chai';
import * as runs from '../../../db/repositories/workflow-runs.js';
import { definitionFactsOf, definitionFactsOfRun } from '../../../services/runs/definition-facts.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';

const definition = {
  name: 'facts',
  nodes: [
    { id: 'plan', bash: 'true', timeout: '90s' },
    { id: 'build', bash: 'true', depends_on: ['plan'] },
  ],
};
const graph = [
  { nodeId: 'plan', dependsOn: [] },
  { nodeId: 'build', dependsOn: ['plan'] },
];

for (const kind of databaseKinds()) {
  describe(`a run's definition facts, worked out once per run (${kind.name})`, () => {
    let test: TestDatabase;
    beforeEach(async () => {
      test = await kind.create();
    });
    afterEach(async () => {
      await test.dispose();
    });

    it("reads a run's stored definition the first time only: it never changes once the run is made", async () => {
      const run = await runs.createRun(test.db.knex, { workflowName: 'facts', definition });
      const first = await definitionFactsOfRun(test, run.id);
      expect(first.nodes).to.deep.equal(graph);
      expect(first.nodeLimits.map((limit) => limit.timeoutMs)).to.deep.equal([90_000, 3_600_000]);
      // Were the row read again, this definition (which no code writes) would give an empty graph.
      await test.db.knex('workflow_runs').where('id', run.id).update({ definition: '{"name":"changed"}' });
      expect(await definitionFactsOfRun(test, run.id)).to.deep.equal(first);
      // The dashboard's path, with a definition at hand, meets the same facts.
      expect(definitionFactsOf(test, run.id, { name: 'ignored', nodes: [] })).to.deep.equal(first);
    });

    it('keeps nothing for a run that does not exist, so a run made later is read', async () => {
      expect(await definitionFactsOfRun(test, 'no-such-run')).to.deep.equal({ nodeLimits: [], nodes: [] });
      const run = await runs.createRun(test.db.knex, { workflowName: 'facts', definition });
      expect((await definitionFactsOfRun(test, run.id)).nodes).to.deep.equal(graph);
    });

    it("keeps each database's runs apart", async () => {
      const other = await kind.create();
      try {
        const run = await runs.createRun(test.db.knex, { workflowName: 'facts', definition });
        expect((await definitionFactsOfRun(test, run.id)).nodes).to.deep.equal(graph);
        expect(await definitionFactsOfRun(other, run.id)).to.deep.equal({ nodeLimits: [], nodes: [] });
      } finally {
        await other.dispose();
      }
    });
  });
}
