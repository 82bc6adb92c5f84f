import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startBrowserCore } from '../support/browser-core.js';
import { GATED_WORKFLOW, type LiveCore } from '../support/live-core.js';
import type { jsonClient } from '../support/json-client.js';
import {
  cuttableRelay,
  DESKTOP,
  horizontalOverflow,
  PHONE,
  screenshot,
  seriousAccessibilityViolations,
} from '../support/browser.js';

/**
 * The little of the browser's document that the functions run in the page read (the tests have no
 * DOM types). Functions, not strings: the page's Content-Security-Policy forbids evaluating a
 * string, which waitForFunction does when its first check fails.
 */
interface PageDocument {
  title: string;
  querySelectorAll(
    selector: string,
  ): ArrayLike<{ textContent: string | null }> & Iterable<{ textContent: string | null }>;
}
type InPage = { document: PageDocument };

const THREE_NODES = `name: three
description: a, then b and c
nodes:
  - id: a
    bash: echo one
  - id: b
    depends_on: [a]
    bash: echo two | tee two.txt "$ARTIFACTS_DIR/two report.txt"
  - id: c
    depends_on: [a]
    bash: |
      printf 'a line far wider than a phone: %0200d\\n' 0 > wide.txt
      echo three
`;

/** Sixty numbered words: a streamed answer long enough to cut in the middle. */
const LONG_ANSWER = Array.from(
  { length: 60 },
  (_, index) => `word${String(index + 1).padStart(2, '0')}`,
).join(' ');

/**
 * The web page in Debian's Chromium (playwright-core) against one live core with workers and the
 * fake assistant: the built page as `npm start` serves it, chat streaming over SSE, a gated run
 * approved from its page, a reconnect in the middle of a stream, every page at phone width,
 * axe-core, and the screenshots of docs/screenshots/. SQLite: the API under the page is tested on
 * both databases by the integration suite.
 */
describe('the web dashboard in a real browser', function () {
  this.timeout(5 * 60_000);
  let core: LiveCore;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let call: ReturnType<typeof jsonClient>;
  let codebaseId: string;

  before(async () => {
    ({ core, browser, context, page, call, codebaseId } = await startBrowserCore({
      'README.md': '# shop\n',
      '.cairn/workflows/gated.yaml': GATED_WORKFLOW,
      '.cairn/workflows/three.yaml': THREE_NODES,
    }));
  });

  after(async () => {
    await browser?.close();
    await core?.close();
  });

  const newConversation = async () => {
    const created = await call<{ platform_conversation_id: string }>('POST', '/api/conversations', {
      codebase_id: codebaseId,
    });
    return created.body.platform_conversation_id;
  };

  const startRun = async (workflow: string, message: string) => {
    const conversationId = await newConversation();
    const started = await call<{ runId: string }>('POST', `/api/workflows/${workflow}/run`, {
      message,
      conversationId,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    return started.body.runId;
  };

  it('serves the built page at / and at deep links, its assets hashed, immutable and compressed', async () => {
    const home = await fetch(`${core.app.url}/`, { headers: { Accept: 'text/html' } });
    expect(home.status).to.equal(200);
    const html = await home.text();
    expect(html).to.include('<div id="root">');
    expect(home.headers.get('cache-control')).to.equal('no-cache');
    const deep = await fetch(`${core.app.url}/runs/some-run`, { headers: { Accept: 'text/html' } });
    expect(await deep.text()).to.equal(html);

    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).to.be.a('string');
    const asset = await fetch(`${core.app.url}${script}`, { headers: { 'Accept-Encoding': 'br' } });
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-encoding')).to.equal('br');
    expect(asset.headers.get('content-type')).to.match(/^text\/javascript/);

    // The server's own paths keep their answers: no page in place of an API 404.
    const api = await fetch(`${core.app.url}/api/nothing-here`, { headers: { Accept: 'text/html' } });
    expect(api.status).to.equal(404);
    expect(api.headers.get('content-type')).to.match(/problem\+json/);
    expect(
      (await fetch(`${core.app.url}/health`, { headers: { Accept: 'text/html' } })).headers.get(
        'content-type',
      ),
    ).to.match(/json/);
    expect((await fetch(`${core.app.url}/assets/missing.js`)).status).to.equal(404);
  });

  it('streams a chat answer in as it arrives, with its tool call as a card', async () => {
    await page.goto(`${core.app.url}/`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.waitForURL(/\/conversations\//);
    await page
      .getByRole('textbox', { name: 'Message' })
      .fill(`[fake:slow 40]\n[fake:tool Bash {"command":"ls"}]\n[fake:reply ${LONG_ANSWER}]`);
    await page.getByRole('button', { name: 'Send' }).click();
    // Part of the answer shows while the rest is still coming.
    await page.locator('[data-testid=draft]').first().waitFor();
    await page.locator('.bubble.assistant', { hasText: 'word60' }).waitFor();
    await page.locator('[data-testid=draft]').waitFor({ state: 'detached' });
    const card = page.locator('details.tool-card', { hasText: 'Bash' });
    await card.locator('summary').click();
    await card.getByText('fake result of Bash').waitFor();
    await page.locator('.bubble.user .badge', { hasText: /queued|answering/ }).waitFor({ state: 'detached' });
  });

  it('loses and repeats nothing when the stream is cut in the middle of an answer', async () => {
    const relay = await cuttableRelay(Number(new URL(core.app.url).port));
    try {
      const relayed = await context.newPage();
      const resumed: string[] = [];
      relayed.on('request', (request) => {
        if (request.url().includes('/api/stream/') && request.url().includes('lastEventId='))
          resumed.push(request.url());
      });
      const id = await newConversation();
      await relayed.goto(`${relay.url}/conversations/${id}`);
      await relayed.getByRole('textbox', { name: 'Message' }).waitFor();
      // Every text the growing answer shows, recorded in the page as it changes.
      await relayed.evaluate(`
        window.seenDrafts = [];
        new MutationObserver(() => {
          const draft = document.querySelector('[data-testid=draft]');
          if (draft?.textContent) window.seenDrafts.push(draft.textContent.replace(/\\s+/g, ' ').trim());
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      `);
      await relayed
        .getByRole('textbox', { name: 'Message' })
        .fill(`[fake:slow 60]\n[fake:reply ${LONG_ANSWER}]`);
      await relayed.getByRole('button', { name: 'Send' }).click();
      await relayed.locator('[data-testid=draft]', { hasText: 'word08' }).waitFor();
      relay.cut();
      await relayed.locator('.bubble.assistant', { hasText: 'word60' }).waitFor({ timeout: 60_000 });
      const seen = await relayed.evaluate<string[]>('window.seenDrafts');
      expect(resumed.length, 'the page reconnected with the last event id').to.be.greaterThan(0);
      expect(seen.length).to.be.greaterThan(1);
      // Each text shown is the start of the answer: a lost piece or a repeated one would break that.
      for (const text of seen) expect(LONG_ANSWER.startsWith(text), text).to.equal(true);
      const answers = await relayed.locator('.bubble.assistant').allTextContents();
      expect(answers.map((answer) => answer.trim())).to.deep.equal([LONG_ANSWER]);
      await relayed.close();
    } finally {
      await relay.close();
    }
  });

  it('starts a gated run from a conversation, approves it from its page, and its graph turns green', async () => {
    await page.goto(`${core.app.url}/conversations/${await newConversation()}`);
    await page.getByRole('textbox', { name: 'Message' }).fill('/workflow run gated ship v2');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(/\/runs\//);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await page.locator('.graph-node.state-waiting').waitFor();
    expect(await page.title()).to.equal('(1) Cairn');
    // Only what a paused run allows is offered.
    expect(await page.getByRole('button', { name: 'Resume' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).to.equal(0);
    await page.getByLabel('Comment (optional)').fill('looks good');
    await screenshot(page, 'run-waiting-desktop');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('h1 .badge.status-completed').waitFor();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as InPage).document.querySelectorAll('.graph-node.state-completed').length ===
        2,
    );
    await page.locator('[data-node=after] summary').click();
    await page.getByText('approved with looks good').first().waitFor();
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.title === 'Cairn');
    // A completed run offers re-run and delete, and nothing else.
    await page.getByRole('button', { name: 'Delete' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Approve|Cancel|Resume|Abandon)$/ }).count()).to.equal(0);
    const firstRun = new URL(page.url()).pathname;
    await page.getByRole('button', { name: 'Re-run' }).click();
    // The re-run is a new run of the same workflow, whose page the button opens: it waits at the gate.
    await page.waitForURL((url) => /^\/runs\/[0-9a-f-]{36}$/.test(url.pathname) && url.pathname !== firstRun);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.locator('h1').textContent()).to.include('gated');
    expect(await page.getByRole('button', { name: 'Re-run' }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('h1 .badge.status-completed').waitFor();
  });

  it('filters the runs by workflow, codebase and day, each kept in the address and on reload', async () => {
    const runId = await startRun('three', 'filter me');
    const row = page.locator(`a[href="/runs/${runId}"]`);
    await page.goto(`${core.app.url}/runs`);
    await row.waitFor();
    await page.locator('.run-row', { hasText: 'gated' }).first().waitFor();
    await page.getByLabel('Workflow', { exact: true }).selectOption('three');
    await page.waitForURL((url) => url.searchParams.get('workflow') === 'three');
    await page.waitForFunction(() => {
      const titles = [...(globalThis as unknown as InPage).document.querySelectorAll('.run-row .card-title')];
      return titles.length > 0 && titles.every((title) => title.textContent?.startsWith('three '));
    });
    await page.getByLabel('Codebase', { exact: true }).selectOption(codebaseId);
    await page.waitForURL((url) => url.searchParams.get('codebase') === codebaseId);
    // The day in the browser's own time zone, as a date field writes it.
    const today = await page.evaluate(() => new Date().toLocaleDateString('sv-SE'));
    const tomorrow = await page.evaluate(() => {
      const day = new Date();
      day.setDate(day.getDate() + 1);
      return day.toLocaleDateString('sv-SE');
    });
    await page.getByLabel('Since', { exact: true }).fill(tomorrow);
    await page.getByText('No runs match these filters.').waitFor();
    await page.getByLabel('Since', { exact: true }).fill(today);
    await page.getByLabel('Until', { exact: true }).fill(today);
    // The row shows again as soon as Since is today: wait for Until to reach the address too.
    await page.waitForURL((url) => url.searchParams.get('until') === today);
    await row.waitFor();
    const address = new URL(page.url());
    expect(Object.fromEntries(address.searchParams)).to.deep.equal({
      workflow: 'three',
      codebase: codebaseId,
      since: today,
      until: today,
    });
    await page.reload();
    await row.waitFor();
    expect(await page.getByLabel('Workflow', { exact: true }).inputValue()).to.equal('three');
    expect(await page.getByLabel('Codebase', { exact: true }).inputValue()).to.equal(codebaseId);
    expect(await page.getByLabel('Since', { exact: true }).inputValue()).to.equal(today);
    expect(await page.locator('.run-row', { hasText: 'gated' }).count()).to.equal(0);
  });

  it("draws a run's graph fitted in its box, moved and zoomed by buttons, keys, drag and wheel", async () => {
    const runId = await startRun('three', 'draw it');
    await page.goto(`${core.app.url}/runs/${runId}`);
    const graph = page.getByTestId('run-graph');
    // The page settled: the run over (its buttons and badge drawn) and the node list under the
    // graph, so neither the graph's place nor its box's size changes under the pointer.
    await page.locator('h1 .badge.status-completed').waitFor();
    await page.locator('[data-node=c]').waitFor();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as InPage).document.querySelectorAll('[data-testid=run-graph] .graph-node')
          .length === 3,
    );
    expect(await graph.locator('.graph-edge').count()).to.equal(2);
    const view = () =>
      page.evaluate<{ x: number; y: number; zoom: number }>(`(() => {
        const stage = document.querySelector('[data-testid=run-graph] .graph-stage');
        const matrix = new DOMMatrix(getComputedStyle(stage).transform);
        return { x: matrix.e, y: matrix.f, zoom: matrix.a };
      })()`);
    /** The view is where it should be (to a hundredth of a pixel: the transform is read back as text). */
    const expectView = async (expected: { x: number; y: number; zoom: number }) => {
      const actual = await view();
      for (const key of ['x', 'y', 'zoom'] as const)
        expect(actual[key], key).to.be.closeTo(expected[key], 0.01);
    };
    const box = (await graph.boundingBox())!;
    // Fitted: every node inside the box, a at the top and b and c side by side below it.
    const places = await page.evaluate<
      { id: string; left: number; right: number; top: number; bottom: number }[]
    >(
      `[...document.querySelectorAll('[data-testid=run-graph] .graph-node')].map((node) =>
        ({ id: node.getAttribute('data-id'), ...node.getBoundingClientRect().toJSON() }))`,
    );
    for (const node of places) {
      expect(node.left, node.id).to.be.greaterThan(box.x);
      expect(node.right, node.id).to.be.lessThan(box.x + box.width);
      expect(node.bottom, node.id).to.be.lessThan(box.y + box.height);
    }
    const [a, b, c] = ['a', 'b', 'c'].map((id) => places.find((node) => node.id === id)!);
    expect(b!.top).to.equal(c!.top);
    expect(b!.top).to.be.greaterThan(a!.bottom);
    const fit = await view();

    await graph.getByRole('button', { name: 'Zoom out' }).click();
    expect((await view()).zoom).to.be.closeTo(fit.zoom / 1.25, 0.001);
    const area = page.getByRole('group', { name: /^The run's graph/ });
    await area.focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    expect((await view()).zoom).to.be.closeTo(fit.zoom * 1.25, 0.001);
    const zoomed = await view();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await expectView({ ...zoomed, x: zoomed.x - 40, y: zoomed.y - 40 });
    await page.keyboard.press('0');
    await expectView(fit);

    // Dragged from an empty corner of the box, the drawing follows the pointer.
    const now = (await graph.boundingBox())!;
    await page.mouse.move(now.x + now.width - 20, now.y + 20);
    await page.mouse.down();
    await page.mouse.move(now.x + now.width - 80, now.y + 50, { steps: 4 });
    await page.mouse.up();
    await expectView({ x: fit.x - 60, y: fit.y + 30, zoom: fit.zoom });
    await page.mouse.wheel(0, -300);
    expect((await view()).zoom).to.be.greaterThan(fit.zoom);
    await graph.getByRole('button', { name: 'Fit the graph' }).click();
    await expectView(fit);
  });

  it('shows a proper not-found page for a run, a conversation or an address that does not exist', async () => {
    for (const path of ['/runs/no-such-run', '/conversations/no-such-conversation', '/no/such/page']) {
      await page.goto(`${core.app.url}${path}`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
    }
  });

  it('lists the codebases, and saves an assistant model from the settings page', async () => {
    await page.goto(`${core.app.url}/codebases`);
    await page.locator('.codebase-row', { hasText: 'shop' }).waitFor();
    await page.goto(`${core.app.url}/settings`);
    await page.getByRole('textbox', { name: 'Claude model' }).fill('claude-from-the-page');
    await page.getByRole('button', { name: 'Save' }).click();
    const answer = page.locator('.panel-form [role=status], .panel-form .error-note').first();
    await answer.waitFor();
    expect(await answer.textContent()).to.equal('Saved.');
    const config = await call<{ assistants: { claude: { model: string | null } } }>('GET', '/api/config');
    expect(config.body.assistants.claude.model).to.equal('claude-from-the-page');
  });

  it('fits every page at 375 px without horizontal scroll, and axe finds nothing serious (screenshots)', async () => {
    const runId = await startRun('three', 'build it');
    const conversation = await call<Array<{ platform_conversation_id: string; title: string | null }>>(
      'GET',
      '/api/conversations',
    );
    const chatted = conversation.body.find((row) => row.title !== null) ?? conversation.body[0]!;
    const pages: Array<[string, string, string]> = [
      ['conversations', '/', 'Conversations'],
      ['conversation', `/conversations/${chatted.platform_conversation_id}`, ''],
      ['runs', '/runs', 'Runs'],
      ['run', `/runs/${runId}`, 'three'],
      ['codebases', '/codebases', 'Codebases'],
      ['settings', '/settings', 'Settings'],
      ['not-found', '/runs/no-such-run', 'Not found'],
    ];
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const themed = await browser.newContext({ viewport, colorScheme: scheme });
        const tab = await themed.newPage();
        for (const [name, path, heading] of pages) {
          await tab.goto(`${core.app.url}${path}`);
          await tab.locator('h1', { hasText: heading }).first().waitFor();
          if (name === 'run') {
            await tab.locator('.graph-node.state-completed').nth(2).waitFor();
            // The changes, with a line wider than a phone: it scrolls in its own box, not the page.
            await tab.getByRole('button', { name: 'Show the changes' }).click();
            await tab.locator('[data-file="two.txt"][data-status=added]').waitFor();
            await tab.locator('[data-file="wide.txt"] .diff-line.added').waitFor();
            // The artifacts, each a download link whose path is one encoded segment.
            const artifact = tab.locator('[data-artifact="two report.txt"] a');
            await artifact.waitFor();
            expect(await artifact.getAttribute('href')).to.equal(
              `/api/workflows/runs/${runId}/artifacts/two%20report.txt`,
            );
            const downloaded = await tab.evaluate(
              async (href) => (await fetch(href!)).text(),
              await artifact.getAttribute('href'),
            );
            expect(downloaded).to.equal('two\n');
            // The timeline: a bar per node, and the events opened by keyboard.
            await tab.locator('[data-timeline-node=c][data-outcome=completed]').waitFor();
            expect(await tab.locator('.gantt-row').count()).to.equal(3);
            await tab.locator('.timeline-events summary').focus();
            await tab.keyboard.press('Enter');
            await tab.getByRole('list', { name: 'Events of the run' }).getByText('run completed').waitFor();
          }
          if (name === 'conversation') await tab.locator('.bubble.assistant').first().waitFor();
          expect(await horizontalOverflow(tab), `${name} at ${width}`).to.equal(0);
          const violations = await seriousAccessibilityViolations(tab);
          expect(
            violations.map(
              (violation) =>
                `${violation.id}: ${violation.help} ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
            ),
            `${name} at ${width}, ${scheme}`,
          ).to.deep.equal([]);
          if (scheme === 'light' || name === 'run')
            await screenshot(tab, `${name}-${width}${scheme === 'dark' ? '-dark' : ''}`);
        }
        await themed.close();
      }
    }
  });
});
