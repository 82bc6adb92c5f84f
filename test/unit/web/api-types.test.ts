import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const TYPES_FILE = new URL('../../../web/src/api/schema.d.ts', import.meta.url);
const HEADER =
  "// Generated from the core service's OpenAPI document by test/unit/web/api-types.test.ts; do not edit.\n" +
  '// Regenerate: UPDATE_API_TYPES=1 npx mocha test/unit/web/api-types.test.ts\n';

/**
 * The web page's API types are generated from the served OpenAPI document, never written by hand.
 * This test regenerates them and fails when the committed file differs: a route that changes its
 * schema cannot leave the page's types silently stale.
 */
describe("the web page's API types", function () {
  this.timeout(60_000);
  let test: TestDatabase;
  let server: TestCoreApp;
  const home = makeTempDir('cairn-home-');

  before(async () => {
    test = await databaseKinds()[0]!.create();
    server = await startLazyCoreApp(test.db, { home: home.path, logger: captureLogs('silent').logger });
  });
  after(async () => {
    await server.close();
    await test.dispose();
    home.cleanup();
  });

  it('match the OpenAPI document the core serves', async () => {
    const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    const generated = HEADER + astToString(await openapiTS(document as never));
    if (process.env.UPDATE_API_TYPES === '1') writeFileSync(TYPES_FILE, generated);
    const committed = readFileSync(TYPES_FILE, 'utf8');
    expect(
      committed === generated,
      'web/src/api/schema.d.ts is stale: UPDATE_API_TYPES=1 npx mocha test/unit/web/api-types.test.ts',
    ).to.equal(true);
  });
});
