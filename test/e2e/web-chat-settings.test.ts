import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databaseKinds } from '../support/databases.js';
import { startLiveCore, type LiveCore } from '../support/live-core.js';
import { jsonClient } from '../support/json-client.js';
import {
  DESKTOP,
  ensureWebBuilt,
  horizontalOverflow,
  launchBrowser,
  PHONE,
  seriousAccessibilityViolations,
} from '../support/browser.js';

/**
 * The chat's conversation search, and what the settings page shows and changes, in Debian's
 * Chromium against one live core with workers and the fake assistant (SQLite: the API under the
 * page is tested on both databases by the integration suite).
 */
describe('the web page: conversation search and settings, in a real browser', function () {
  this.timeout(5 * 60_000);
  const [sqlite] = databaseKinds();
  let core: LiveCore;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let call: ReturnType<typeof jsonClient>;
  let codebaseId: string;

  before(async () => {
    ensureWebBuilt();
    core = await startLiveCore(sqlite!, { 'README.md': '# shop\n' }, { app: { webPage: true } });
    call = jsonClient(core.app.url);
    const registered = await call<{ id: string }>('POST', '/api/codebases', {
      path: core.repo.path,
      name: 'shop',
    });
    expect(registered.status, JSON.stringify(registered.body)).to.be.oneOf([200, 201]);
    codebaseId = registered.body.id;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error));
  });

  after(async () => {
    await browser?.close();
    await core?.close();
  });

  const newConversation = async (title?: string, onCodebase = true) => {
    const created = await call<{ platform_conversation_id: string }>('POST', '/api/conversations', {
      ...(onCodebase && { codebase_id: codebaseId }),
      ...(title && { title }),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.platform_conversation_id;
  };

  const titlesShown = (tab: Page) => tab.locator('.cards .card-title').allTextContents();

  /** The list's titles once it shows `count` of them (polled from here: the page's CSP forbids eval). */
  const waitForTitles = async (tab: Page, count: number) => {
    for (let tries = 0; tries < 200; tries += 1) {
      const titles = await titlesShown(tab);
      if (titles.length === count) return titles;
      await tab.waitForTimeout(50);
    }
    throw new Error(`the list never showed ${count} conversations: ${(await titlesShown(tab)).join(', ')}`);
  };

  it('searches the conversations by title, keeps the search in the address, and pages through the matches', async () => {
    // More matches than one page of the list (30), among others that do not match.
    for (let index = 1; index <= 32; index += 1) await newConversation(`Deploy step ${index}`);
    await newConversation('Fix the 100% case');
    await newConversation('Fix the 1000 case');
    await newConversation('Unrelated chat', false);

    await page.goto(`${core.app.url}/`);
    await page.getByRole('searchbox', { name: 'Search conversations by title' }).fill('fix THE 100%');
    await page.waitForURL((url) => url.searchParams.get('q') === 'fix THE 100%');
    expect(await waitForTitles(page, 1)).to.deep.equal(['Fix the 100% case']);

    // The address holds the search: a reload (or a shared link) shows the same list.
    await page.reload();
    await page.locator('.cards .card-title', { hasText: 'Fix the 100% case' }).waitFor();
    expect(
      await page.getByRole('searchbox', { name: 'Search conversations by title' }).inputValue(),
    ).to.equal('fix THE 100%');
    expect(await titlesShown(page)).to.deep.equal(['Fix the 100% case']);

    // Paging keeps the search: "Show more" brings the rest of the matches, and only them.
    await page.goto(`${core.app.url}/?q=deploy`);
    await waitForTitles(page, 30);
    await page.getByRole('button', { name: 'Show more' }).click();
    const shown = await waitForTitles(page, 32);
    expect(new Set(shown).size).to.equal(32);
    expect(shown.every((title) => title.startsWith('Deploy step '))).to.equal(true);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).to.equal(0);

    // With the codebase filter as well, both stay in the address.
    await page.getByRole('combobox', { name: 'Codebase' }).selectOption({ label: 'shop' });
    await page.waitForURL((url) => url.searchParams.get('codebase') === codebaseId);
    expect(new URL(page.url()).searchParams.get('q')).to.equal('deploy');
    await page.getByRole('searchbox', { name: 'Search conversations by title' }).fill('unrelated');
    await page.getByText('No conversation’s title contains “unrelated”.').waitFor();
    await page.getByRole('combobox', { name: 'Codebase' }).selectOption({ label: 'All' });
    expect(await waitForTitles(page, 1)).to.deep.equal(['Unrelated chat']);

    // Emptying the box lists everything again, and the address forgets the search.
    await page.getByRole('searchbox', { name: 'Search conversations by title' }).fill('');
    await page.waitForURL((url) => !url.searchParams.has('q'));
    await page.getByRole('button', { name: 'Show more' }).waitFor();
  });

  it('fits these pages at 375 px without horizontal scroll, and axe finds nothing serious', async () => {
    const conversationId = await newConversation('Deploy from a phone');
    const pages: Array<[string, string, string]> = [
      ['conversations searched', '/?q=deploy', 'Conversations'],
      ['settings', '/settings', 'Settings'],
      ['conversation', `/conversations/${conversationId}`, 'Deploy from a phone'],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      const phone = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
      const tab = await phone.newPage();
      for (const [name, path, heading] of pages) {
        await tab.goto(`${core.app.url}${path}`);
        await tab.locator('h1', { hasText: heading }).first().waitFor();
        if (name === 'conversations searched') await tab.locator('.cards .card-title').first().waitFor();
        expect(await horizontalOverflow(tab), `${name}, ${scheme}`).to.equal(0);
        const violations = await seriousAccessibilityViolations(tab);
        expect(
          violations.map(
            (violation) =>
              `${violation.id}: ${violation.help} ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
          ),
          `${name}, ${scheme}`,
        ).to.deep.equal([]);
      }
      await phone.close();
    }
  });
});
