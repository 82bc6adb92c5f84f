import type { DatabaseKind, TestDatabase } from './databases.js';
import { startTestCoreApp, type TestCoreApp, type TestCoreAppOptions } from './core-app.js';
import type { Logger } from '../../config/logger.js';
import type { ServiceContext } from '../../services/context.js';
import { fakeAssistants, type FakeAssistantSetup } from './fake-assistants.js';
import { makeTempRepo, type TempRepo } from './git-repos.js';
import { testServiceContext } from './service-context.js';
import { startTestWorkers, type RunningTestWorkers } from './temporal.js';
import { makeTempDir } from './temp-dirs.js';

/** The API and the workers in this process, on a fresh database and home, with the fake assistants and one repository. */
export interface LiveCore {
  test: TestDatabase;
  home: ReturnType<typeof makeTempDir>;
  fakes: FakeAssistantSetup;
  repo: TempRepo;
  workers: RunningTestWorkers;
  context: ServiceContext;
  app: TestCoreApp;
  close(): Promise<void>;
}

export interface LiveCoreOptions {
  /** Variables of the service context, over the fakes' (a chat platform's token and address). */
  env?: Record<string, string>;
  app?: TestCoreAppOptions;
  /** The service's logger (a captureLogs one, to read what was logged). */
  logger?: Logger;
  /** Activities of the core queue that may run at once (the SDK's default otherwise). */
  coreActivitySlots?: number;
}

export async function startLiveCore(
  kind: DatabaseKind,
  files: Record<string, string>,
  options: LiveCoreOptions = {},
): Promise<LiveCore> {
  const test = await kind.create();
  const home = makeTempDir('cairn-home-');
  const fakes = fakeAssistants();
  const repo = makeTempRepo({ files });
  const context = testServiceContext(test.db, {
    home: home.path,
    env: { ...fakes.env, ...options.env },
    logger: options.logger,
  });
  const workers = await startTestWorkers(test.db, {
    dependencies: context,
    coreActivitySlots: options.coreActivitySlots,
  });
  const app = await startTestCoreApp(test.db, context, workers, options.app);
  return {
    test,
    context,
    home,
    fakes,
    repo,
    workers,
    app,
    async close() {
      await app.close();
      await workers.stop();
      await test.dispose();
      repo.cleanup();
      fakes.cleanup();
      home.cleanup();
    },
  };
}

/** A workflow `gated`: an approval gate (its comment captured), then a script that echoes it. */
export const GATED_WORKFLOW = `name: gated
description: a gate, then a script
nodes:
  - id: gate
    approval:
      message: Ship it?
      capture_response: true
  - id: after
    depends_on: [gate]
    bash: |
      echo "approved with $GATE_OUTPUT"
      echo "to stderr" >&2
`;
