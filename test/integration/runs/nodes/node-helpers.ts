import { MockActivityEnvironment } from '@temporalio/testing';
import type { ServiceContext } from '../../../../services/context.js';
import { databaseKinds, type TestDatabase } from '../../../support/databases.js';
import { testServiceContext } from '../../../support/service-context.js';
import { makeTempDir, makeTempHome } from '../../../support/temp-dirs.js';
import { createNodeActivities } from '../../../../activities/runs/node-activities.js';
export { isAlive, readPid, rejection, waitFor } from '../../../support/processes.js';
import type {
  AssistantNodeInput,
  BashNodeInput,
  NodeOutcome,
  ScriptNodeInput,
} from '../../../../domain/runs/run-contract.js';

/** Runs a node activity inside Temporal's own activity harness, as a worker would. */
export function nodeRunner(deps: ServiceContext) {
  const activities = createNodeActivities(deps);
  return {
    bash(input: BashNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runBashNode, input);
    },
    script(input: ScriptNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runScriptNode, input);
    },
    assistant(input: AssistantNodeInput, env = new MockActivityEnvironment()): Promise<NodeOutcome> {
      return env.run(activities.runAssistantNode, input);
    },
  };
}

export interface ProcessNodeFixture {
  database: TestDatabase;
  home: ReturnType<typeof makeTempHome>;
  /** A fresh folder per test, the node's cwd. */
  work: ReturnType<typeof makeTempDir>;
  run: ReturnType<typeof nodeRunner>;
}

/**
 * What a bash or script node test runs with, set up by mocha hooks of the calling describe: an
 * SQLite database (these nodes write only their log events), a home, a secret in the service's
 * environment that must never reach a node, and a work folder per test.
 */
export function processNodeFixture(workPrefix: string): ProcessNodeFixture {
  const fixture = {} as ProcessNodeFixture;
  before(async () => {
    fixture.database = await databaseKinds()[0]!.create();
    fixture.home = makeTempHome();
    fixture.run = nodeRunner(
      testServiceContext(fixture.database.db, {
        home: fixture.home.home,
        env: { SLACK_APP_TOKEN: 'xapp-secret-value' },
      }),
    );
  });
  after(async () => {
    await fixture.database.dispose();
    fixture.home.cleanup();
  });
  beforeEach(() => {
    fixture.work = makeTempDir(workPrefix);
  });
  afterEach(() => fixture.work.cleanup());
  return fixture;
}
