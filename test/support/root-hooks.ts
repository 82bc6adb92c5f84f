import { stopTestTemporal } from './temporal.js';

// Mocha root hooks: the shared Temporal dev server is started lazily by the first test that
// needs it and stopped once, after every test file has run.
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await stopTestTemporal();
  },
};
