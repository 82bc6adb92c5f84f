import { dropDatabaseTemplates } from './databases.js';
import { stopTestTemporal } from './temporal.js';

// Every Cairn the suite starts, in this process or as a child, checks its JSON answers against
// their OpenAPI response schemas: a handler that drifts from its documentation fails its tests.
process.env.CAIRN_VALIDATE_RESPONSES = 'true';

// Mocha root hooks: the shared Temporal dev server is started lazily by the first test that
// needs it and stopped once, after every test file has run; so are the migrated database templates.
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await stopTestTemporal();
    await dropDatabaseTemplates();
  },
};
