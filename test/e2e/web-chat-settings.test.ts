import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startBrowserCore } from '../support/browser-core.js';
import type { LiveCore } from '../support/live-core.js';
import type { jsonClient } from '../support/json-client.js';
import { horizontalOverflow, PHONE, seriousAccessibilityViolations } from '../support/browser.js';

const TEMPORAL_UI = 'http://temporal-ui.test:8080';

/** A workflow with a required input and a defaulted one, which its script echoes. */
const GREET_WORKFLOW = `name: greet
description: says hello to whoever the run names
inputs:
  who: { required: true, description: Who to greet }
  mood: { default: cheerful }
nodes:
  - id: hello
    bash: echo "hello $INPUT_WHO, $INPUT_MOOD"
`;

/**
 * The chat's conversation search, the form that starts a workflow run from a conversation, and
 * what the settings page shows and changes, in Debian's
 * Chromium against one live core with workers and the fake assistant (SQLite: the API under the
 * page is tested on both databases by the integration suite).
 */
describe('the web page: conversation search, a run started from a conversation, and settings, in a real browser', function () {
  this.timeout(5 * 60_000);
  let core: LiveCore;
  let browser: Browser;
  let page: Page;
  let call: ReturnType<typeof jsonClient>;
  let codebaseId: string;

  before(async () => {
    ({ core, browser, page, call, codebaseId } = await startBrowserCore(
      { 'README.md': '# shop\n', '.cairn/workflows/greet.yaml': GREET_WORKFLOW },
      { env: { TEMPORAL_UI_URL: TEMPORAL_UI } },
    ));
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

  it('starts a workflow run from a conversation, with a field per declared input, and links to the run', async () => {
    const conversationId = await newConversation('Greetings');
    await page.goto(`${core.app.url}/conversations/${conversationId}`);
    await page.getByText('Run a workflow', { exact: true }).click();
    const form = page.getByRole('form', { name: 'Run a workflow' });
    await form.getByRole('combobox', { name: 'Workflow' }).selectOption('greet');
    await form.getByText('says hello to whoever the run names').waitFor();
    const who = form.getByRole('textbox', { name: 'who (required)' });
    expect(await who.getAttribute('required')).to.not.equal(null);
    expect(await page.locator(`#${await who.getAttribute('aria-describedby')}`).textContent()).to.equal(
      'Who to greet',
    );
    const mood = form.getByRole('textbox', { name: 'mood' });
    expect(await mood.getAttribute('placeholder')).to.equal('cheerful');
    const start = form.getByRole('button', { name: 'Start the run' });
    expect(await start.isDisabled(), 'no message yet').to.equal(true);
    await form.getByRole('textbox', { name: 'What the run is about' }).fill('say hello');
    await who.fill('Ada');
    await start.click();
    await form.getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const runId = new URL(page.url()).pathname.split('/').at(-1)!;
    await page.locator('h1 .badge.status-completed').waitFor();
    const run = await call<{ run: { inputs: unknown; message: string; conversationId: string } }>(
      'GET',
      `/api/workflows/runs/${runId}`,
    );
    expect(run.body.run.inputs).to.deep.equal({ who: 'Ada', mood: 'cheerful' });
    expect(run.body.run.message).to.equal('say hello');
    const conversation = await call<{ id: string }>('GET', `/api/conversations/${conversationId}`);
    expect(run.body.run.conversationId).to.be.oneOf([conversationId, conversation.body.id]);
    await page.locator('[data-node=hello] summary').click();
    await page.getByText('hello Ada, cheerful').first().waitFor();
  });

  it('says why no run can start from a conversation without a codebase', async () => {
    const conversationId = await newConversation('Loose chat', false);
    await page.goto(`${core.app.url}/conversations/${conversationId}`);
    await page.getByText('Run a workflow', { exact: true }).click();
    await page.getByTestId('no-codebase').waitFor();
    expect(await page.getByTestId('no-codebase').textContent()).to.include(
      'This conversation has no codebase',
    );
    expect(await page.getByRole('combobox', { name: 'Workflow' }).count()).to.equal(0);
  });

  it('shows the Temporal Web UI link and the update check on the settings page', async () => {
    await page.goto(`${core.app.url}/settings`);
    const link = page.getByRole('link', { name: 'Open the Temporal Web UI' });
    await link.waitFor();
    expect(await link.getAttribute('href')).to.equal(TEMPORAL_UI);
    // A source build asks no release server, and the page says so rather than "up to date".
    const state = page.locator('[data-update-state]');
    await state.waitFor();
    expect(await state.getAttribute('data-update-state')).to.equal('off');
    expect(await state.textContent()).to.include('The update check is off: this is a source build');
    const facts = await page.locator('section[aria-labelledby=update-title] dd').allTextContents();
    const running = await call<{ currentVersion: string }>('GET', '/api/update-check');
    expect(facts).to.deep.equal([running.body.currentVersion, 'not checked']);
  });

  it('saves only the assistant settings that changed, and shows a refused one beside its field', async () => {
    const before = await call<{ assistants: Record<string, Record<string, unknown>> }>('GET', '/api/config');
    const patches: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && request.url().endsWith('/api/config/assistants'))
        patches.push(request.postDataJSON());
    });
    await page.goto(`${core.app.url}/settings`);
    const save = page.getByRole('button', { name: 'Save' });
    await save.waitFor();
    expect(await save.isDisabled(), 'nothing changed yet').to.equal(true);

    const wantedSources = ['project', 'user'].filter(
      (source) => !(before.body.assistants.claude!.settingSources as string[]).includes(source),
    );
    expect(wantedSources.length).to.be.greaterThan(0);
    for (const source of wantedSources) await page.getByRole('checkbox', { name: source }).check();
    await page.getByRole('combobox', { name: 'Reasoning effort' }).fill('high');
    await save.click();
    await page.locator('.assistant-settings [role=status]', { hasText: 'Saved.' }).waitFor();
    expect(patches).to.deep.equal([
      { claude: { settingSources: ['project', 'user'] }, codex: { modelReasoningEffort: 'high' } },
    ]);
    const after = await call<{ assistants: Record<string, Record<string, unknown>> }>('GET', '/api/config');
    expect(after.body.assistants.claude!.settingSources).to.have.members(['project', 'user']);
    expect(after.body.assistants.codex!.modelReasoningEffort).to.equal('high');
    expect(after.body.assistants.claude!.model).to.deep.equal(before.body.assistants.claude!.model);

    // A relative directory is refused by the API (400 naming /body/codex/additionalDirectories/1):
    // the reason shows under that field, naming the entry, and nothing is saved.
    const directories = page.getByRole('textbox', { name: 'Extra directories' });
    await directories.fill('/srv/shared\nrelative/dir');
    await save.click();
    const error = page.locator('#codex-directories-error');
    await error.waitFor();
    expect(await error.textContent()).to.equal('relative/dir: not an absolute path (start it with /)');
    expect(await directories.getAttribute('aria-invalid')).to.equal('true');
    expect(await directories.getAttribute('aria-describedby')).to.equal('codex-directories-error');
    expect(patches.at(-1)).to.deep.equal({
      codex: { additionalDirectories: ['/srv/shared', 'relative/dir'] },
    });
    const unchanged = await call<{ assistants: { codex: { additionalDirectories: string[] } } }>(
      'GET',
      '/api/config',
    );
    expect(unchanged.body.assistants.codex.additionalDirectories).to.deep.equal([]);

    // Corrected, it saves, and the error goes.
    await directories.fill('/srv/shared\n/srv/more');
    await save.click();
    await page.locator('.assistant-settings [role=status]', { hasText: 'Saved.' }).waitFor();
    expect(await error.count()).to.equal(0);
    const saved = await call<{ assistants: { codex: { additionalDirectories: string[] } } }>(
      'GET',
      '/api/config',
    );
    expect(saved.body.assistants.codex.additionalDirectories).to.deep.equal(['/srv/shared', '/srv/more']);
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
        if (name === 'conversation') {
          // The run form open, with its input fields.
          await tab.getByText('Run a workflow', { exact: true }).click();
          await tab.getByRole('combobox', { name: 'Workflow' }).selectOption('greet');
          await tab.getByRole('textbox', { name: 'who (required)' }).waitFor();
        }
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
