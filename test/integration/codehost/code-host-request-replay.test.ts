import { expect } from 'chai';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createCodeHostActivities } from '../../../activities/codehost/code-host-activities.js';
import { databaseKinds } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { testTemporal } from '../../support/temporal.js';

const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Earlier versions of codeHostRequestWorkflow, each with the change it came before. */
const EARLIER_VERSIONS = [
  { fixture: 'code-host-request-before-codebase.ts', before: 'the codebase step (one activity)' },
  { fixture: 'code-host-request-three-steps.ts', before: 'the one-step answer (three activities)' },
];

/**
 * A code-host request started by an earlier version of the workflow code and finished there
 * replays against today's code: each change sits behind patched(), so requests in flight across
 * an upgrade finish as they began.
 */
for (const { fixture, before: change } of EARLIER_VERSIONS)
  describe(`code-host request workflows started before ${change}`, function () {
    this.timeout(3 * 60_000);

    it("replay against today's workflow code", async () => {
      const [kind] = databaseKinds();
      const test = await kind!.create();
      const home = makeTempDir('cairn-replay-home-');
      try {
        const temporal = await testTemporal();
        const before = await bundleWorkflowCode({
          workflowsPath: fileURLToPath(new URL(`../../fixtures/workflows/${fixture}`, import.meta.url)),
          logger: silent,
        });
        const taskQueue = `replay-${randomUUID()}`;
        const worker = await Worker.create({
          connection: temporal.nativeConnection,
          namespace: temporal.endpoint.namespace,
          taskQueue,
          workflowBundle: before,
          activities: createCodeHostActivities(testServiceContext(test.db, { home: home.path })),
        });
        // No delivery is recorded under this key: the old first activity answers `forgotten`, for real.
        const handle = await temporal.client.workflow.start('codeHostRequestWorkflow', {
          taskQueue,
          workflowId: `replay-${randomUUID()}`,
          args: [{ platform: 'github', requestKey: 'acme/shop#1:comment:1@never-recorded' }],
        });
        expect(await worker.runUntil(handle.result())).to.equal('forgotten');
        const history = await handle.fetchHistory();
        expect(history.events?.some((event) => event.activityTaskScheduledEventAttributes)).to.equal(true);
        await Worker.runReplayHistory({ workflowBundle: temporal.bundle }, history, handle.workflowId);
      } finally {
        await test.dispose();
        home.cleanup();
      }
    });
  });
