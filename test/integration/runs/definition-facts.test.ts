import { expect } from 'chai';
import * as runs from '../../../db/repositories/workflow-runs.js';
import { runJsonColumns } from '../../../api/core/runs/run-view.js';
import { definitionFactsOf, definitionFactsOfRun } from '../../../services/runs/definition-facts.js';
import { dashboardRuns } from '../../../services/runs/run-reads.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';

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

    it("gives the dashboard the node limits of its page's running runs, and of no other", async () => {
      const { knex } = test.db;
      const running = await runs.createRun(knex, { workflowName: 'facts', definition });
      await runs.transitionRun(knex, running.id, ['pending'], 'running');
      await runs.createRun(knex, { workflowName: 'facts', definition });
      // An input named status whose value is "running" reads like a running run in the JSON text:
      // the definitions' query, which checks the status, still leaves it out.
      const lookalike = await runs.createRun(knex, {
        workflowName: 'facts',
        definition,
        inputs: { status: 'running' },
      });
      expect(JSON.stringify(lookalike.inputs)).to.equal('{"status":"running"}');
      const home = makeTempDir();
      try {
        const context = testServiceContext(test.db, { home: home.path });
        const page = await dashboardRuns(context, { limit: 10 }, runJsonColumns);
        expect(page.items).to.have.length(3);
        expect(Object.keys(page.nodeLimits)).to.deep.equal([running.id]);
        expect(page.nodeLimits[running.id]!.map((limit) => limit.timeoutMs)).to.deep.equal([
          90_000, 3_600_000,
        ]);
        await runs.transitionRun(knex, running.id, ['running'], 'completed');
        expect((await dashboardRuns(context, { limit: 10 }, runJsonColumns)).nodeLimits).to.deep.equal({});
      } finally {
        home.cleanup();
      }
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
