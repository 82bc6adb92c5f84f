import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../infra/crypto/password-hash.js';
import { SignIn } from '../../services/auth/sign-in.js';
import { databaseKinds, type TestDatabase } from '../support/databases.js';
import { startLazyCoreApp, type TestCoreApp } from '../support/core-app.js';
import { captureLogs } from '../support/logs.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { DESKTOP, ensureWebBuilt, launchBrowser } from '../support/browser.js';

const USERNAME = 'ada';
const PASSWORD = 'correct horse battery staple';

/**
 * The web page behind the form sign-in, in Chromium: a deep link leads to /login and back after,
 * the page's API calls and streams carry the session, and "Sign out" ends it. The API the page
 * uses needs no Temporal here (lists, one run, the streams), so the core's client stays lazy.
 */
describe('the web page with sign-in on, in a real browser', function () {
  this.timeout(2 * 60_000);
  let test: TestDatabase;
  let server: TestCoreApp;
  let browser: Browser;
  const home = makeTempDir('cairn-home-');

  before(async () => {
    ensureWebBuilt();
    test = await databaseKinds()[0]!.create();
    const signIn = new SignIn(test.db.knex, {
      mode: 'form',
      form: {
        username: USERNAME,
        passwordHash: await hashPassword(PASSWORD),
        cookieSecret: Buffer.alloc(32, 7),
        cookieMaxAgeSeconds: 3600,
      },
      trustProxy: false,
    });
    server = await startLazyCoreApp(test.db, {
      home: home.path,
      logger: captureLogs('silent').logger,
      signIn,
      webPage: true,
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await test?.dispose();
    home.cleanup();
  });

  it('sends a deep link to the sign-in page and back, and signs out', async () => {
    const page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    await page.goto(`${server.url}/runs?status=failed`);
    expect(new URL(page.url()).pathname).to.equal('/login');

    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(new URL(page.url()).pathname).to.equal('/login');

    await page.getByLabel('Username').fill(USERNAME);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(new URL(page.url()).search).to.equal('?status=failed');
    // The page's own requests carry the session: the counts came back.
    await page.locator('.count-pill', { hasText: '0' }).first().waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).to.equal('/login');
  });
});
