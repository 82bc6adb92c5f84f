import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBrowserCore } from '../support/browser-core.js';
import type { LiveCore } from '../support/live-core.js';
import {
  DESKTOP,
  horizontalOverflow,
  PHONE,
  screenshot,
  seriousAccessibilityViolations,
} from '../support/browser.js';

/** The little of the browser's document the page functions below read (no DOM types here). */
interface PageDocument {
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

const PAIR = `# Two steps: the comment stays through edits and saves
name: pair
description: one, then two
nodes:
  - id: one
    bash: echo one
  - id: two
    depends_on: [one]
    bash: echo two
`;

/**
 * The workflow pages in Debian's Chromium against a live core with workers and the fake
 * assistant: the list with its load errors, the YAML editor checked as you type with each problem
 * at its line, the graph redrawn from the text, the palette, save, run and delete.
 */
describe('the workflow pages in a real browser', function () {
  this.timeout(5 * 60_000);
  let core: LiveCore;
  let browser: Browser;
  let page: Page;
  let codebaseId: string;

  before(async () => {
    ({ core, browser, page, codebaseId } = await startBrowserCore({
      'README.md': '# shop\n',
      '.cairn/workflows/pair.yaml': PAIR,
      '.cairn/workflows/broken.yaml': 'name: broken\nnodes: [unclosed\n',
    }));
  });

  after(async () => {
    await browser?.close();
    await core?.close();
  });

  const editorPath = (name: string) => `/workflows/${name}?codebase=${codebaseId}`;
  const graphNodes = () => page.getByTestId('workflow-graph').locator('.graph-node');

  /** Replaces the editor's whole text, as a user selecting all and typing would. */
  async function typeText(text: string) {
    await page.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(text);
  }

  it("lists the bundled and the codebase's workflows, and the files that did not load", async () => {
    await page.goto(`${core.app.url}/workflows`);
    await page.locator('.card-title', { hasText: 'assist' }).first().waitFor();
    expect(await page.locator('.card-title', { hasText: 'pair' }).count()).to.equal(0);
    await page.getByRole('combobox', { name: 'Codebase' }).selectOption({ label: 'shop' });
    await page.locator('.card-title', { hasText: 'pair' }).waitFor();
    expect(page.url()).to.include(`codebase=${codebaseId}`);
    const failed = page.locator('.load-errors li', { hasText: 'broken.yaml' });
    await failed.waitFor();
    expect(await failed.textContent()).to.match(/not valid YAML/);
  });

  it('checks the YAML as it is typed, each problem at its line, and redraws the graph', async () => {
    await page.goto(`${core.app.url}${editorPath('pair')}`);
    await page.locator('.cm-content', { hasText: 'the comment stays' }).waitFor();
    await page.getByTestId('workflow-verdict').filter({ hasText: 'Valid.' }).waitFor();
    await expectGraph(['one', 'two']);

    // A misspelt key on line 10, and a third node: the problem is marked on its line, the graph grows.
    const typed = PAIR + '    bogus: 1\n  - id: three\n    depends_on: [two]\n    prompt: hi\n';
    await typeText(typed);
    const problem = page.getByTestId('workflow-verdict').locator('li');
    await problem.filter({ hasText: 'unknown key "bogus"' }).waitFor();
    expect(await problem.first().textContent()).to.match(/^line 10: nodes\[1\] "two": unknown key "bogus"/);
    expect(await page.locator('.cm-lintRange-error').first().textContent()).to.equal('bogus');
    await expectGraph(['one', 'two', 'three']);
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).to.equal(true);

    // Broken YAML is placed where the parser stopped, without asking the server.
    await typeText('name: pair\nnodes:\n  - id: one\n    bash: [oops\n');
    await problem
      .first()
      .filter({ hasText: /^line [45]:/ })
      .waitFor();
  });

  it('adds nodes from the palette, saves the text as written, and runs the saved workflow', async () => {
    await page.goto(`${core.app.url}${editorPath('pair')}`);
    await page.locator('.cm-content', { hasText: 'the comment stays' }).waitFor();
    await page.getByRole('group', { name: 'Add a node' }).getByRole('button', { name: 'approval' }).click();
    await page.locator('.cm-content', { hasText: 'approval-1' }).waitFor();
    await expectGraph(['one', 'two', 'approval-1']);
    await page.getByTestId('workflow-verdict').filter({ hasText: 'Valid.' }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved to .cairn/workflows/pair.yaml.' }).waitFor();
    // Saved and read back: nothing left to save.
    await page.getByRole('button', { name: 'Save', exact: true }).and(page.locator(':disabled')).waitFor();
    const saved = readFileSync(join(core.repo.path, '.cairn', 'workflows', 'pair.yaml'), 'utf8');
    expect(saved).to.include('# Two steps: the comment stays');
    expect(saved).to.match(
      /- id: approval-1\n {4}depends_on: \[ two \]\n {4}approval:\n {6}message: Go on\?/,
    );

    await page.getByRole('textbox', { name: 'Message' }).fill('ship the pair');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await page.locator('h1', { hasText: 'pair' }).waitFor();
    await page.locator('.graph-node.state-waiting').waitFor();
  });

  it('writes a new workflow into the codebase, and deletes it', async () => {
    await page.goto(`${core.app.url}/workflows?codebase=${codebaseId}`);
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.locator('.cm-content', { hasText: 'my-workflow' }).waitFor();
    await typeText(
      'name: fresh\ndescription: made on the page\nnodes:\n  - id: only\n    bash: echo fresh\n',
    );
    await page.getByTestId('workflow-verdict').filter({ hasText: 'Valid.' }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/workflows\/fresh\?codebase=/);
    const file = join(core.repo.path, '.cairn', 'workflows', 'fresh.yaml');
    expect(readFileSync(file, 'utf8')).to.include('bash: echo fresh');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/workflows\?codebase=/);
    expect(existsSync(file)).to.equal(false);
    await page.locator('.card-title', { hasText: 'pair' }).waitFor();
    expect(await page.locator('.card-title', { hasText: 'fresh' }).count()).to.equal(0);
  });

  it('fits 375 px without horizontal scroll, and axe finds nothing serious (screenshots)', async () => {
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const context = await browser.newContext({ viewport, colorScheme: 'light' });
      const tab = await context.newPage();
      await tab.goto(`${core.app.url}/workflows?codebase=${codebaseId}`);
      await tab.locator('.card-title', { hasText: 'pair' }).waitFor();
      await checkPage(tab, `workflows-${width}`);
      await tab.goto(`${core.app.url}${editorPath('fix-issue')}`);
      await tab.getByTestId('workflow-graph').locator('.graph-node').nth(3).waitFor();
      await tab.getByTestId('workflow-verdict').filter({ hasText: 'Valid.' }).waitFor();
      await checkPage(tab, `workflow-editor-${width}`);
      await context.close();
    }
  });

  async function checkPage(tab: Page, name: string) {
    expect(await horizontalOverflow(tab), name).to.equal(0);
    const violations = await seriousAccessibilityViolations(tab);
    expect(
      violations.map((violation) => `${violation.id}: ${violation.help} ${JSON.stringify(violation.nodes)}`),
      name,
    ).to.deep.equal([]);
    await screenshot(tab, name);
  }

  /** Waits until the graph beside the text draws exactly these nodes. */
  async function expectGraph(ids: string[]) {
    // A function, not a string: the page's Content-Security-Policy forbids evaluating strings.
    await page.waitForFunction((expected) => {
      const { document } = globalThis as unknown as { document: PageDocument };
      const drawn = [...document.querySelectorAll('[data-testid=workflow-graph] .graph-node')];
      return JSON.stringify(drawn.map((node) => node.getAttribute('data-id') ?? '')) === expected;
    }, JSON.stringify(ids));
    expect(await graphNodes().count()).to.equal(ids.length);
  }
});
