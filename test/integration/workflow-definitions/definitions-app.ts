import { Client } from '@temporalio/client';
import { createCodebase } from '../../../db/repositories/codebases.js';
import type { DatabaseKind, TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';

/** A core app and a repository registered as a codebase: what the workflow and command endpoints read. */
export interface DefinitionsApp {
  test: TestDatabase;
  app: TestCoreApp;
  repo: TempRepo;
  close(): Promise<void>;
}

export async function startDefinitionsApp(kind: DatabaseKind): Promise<DefinitionsApp> {
  const test = await kind.create();
  const home = makeTempDir('cairn-home-');
  const repo = makeTempRepo({ files: { 'README.md': '# app\n' } });
  // These endpoints never reach Temporal; a lazy client connects only when asked to.
  const app = await startTestCoreApp(test.db, testServiceContext(test.db, { home: home.path }), {
    temporal: { client: new Client() },
    taskQueue: 'unused',
  });
  await createCodebase(test.db.knex, {
    name: 'app',
    repositoryKey: repo.path,
    localPath: repo.path,
    sourcePath: repo.path,
  });
  return {
    test,
    app,
    repo,
    async close() {
      await app.close();
      await test.dispose();
      repo.cleanup();
      home.cleanup();
    },
  };
}
