import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databaseKinds } from './databases.js';
import { DESKTOP, ensureWebBuilt, launchBrowser } from './browser.js';
import { jsonClient } from './json-client.js';
import { startLiveCore, type LiveCore, type LiveCoreOptions } from './live-core.js';

/** A live core serving the built page, its repository registered as `shop`, and Chromium on a desktop tab. */
export interface BrowserCore {
  core: LiveCore;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  call: ReturnType<typeof jsonClient>;
  codebaseId: string;
}

/** The browser tests' common start: SQLite (the API under the page is tested on both databases elsewhere). */
export async function startBrowserCore(
  files: Record<string, string>,
  options: LiveCoreOptions = {},
): Promise<BrowserCore> {
  ensureWebBuilt();
  const [sqlite] = databaseKinds();
  const core = await startLiveCore(sqlite!, files, { ...options, app: { ...options.app, webPage: true } });
  try {
    const call = jsonClient(core.app.url);
    const registered = await call<{ id: string }>('POST', '/api/codebases', {
      path: core.repo.path,
      name: 'shop',
    });
    expect(registered.status, JSON.stringify(registered.body)).to.be.oneOf([200, 201]);
    const browser = await launchBrowser();
    const context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error));
    return { core, browser, context, page, call, codebaseId: registered.body.id };
  } catch (error) {
    await core.close();
    throw error;
  }
}
