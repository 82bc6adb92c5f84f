// The web page under live load, in Debian's Chromium against a real `cairn start` (SQLite,
// embedded Temporal, the fake assistant):
// - a finished run of 100 nodes (ten layers of ten): the time from the run's data arriving in the
//   page to its graph drawn as a user sees it (100 nodes laid out and fitted in the box, 90 edges,
//   the frame rendered), and from navigation; cold (a new browser context) and warm (the same tab
//   again), BENCH_RUNS (5) loads each;
// - an answer streamed at about 1,000 text deltas a second (the fake assistant's 8-character
//   pieces 1 ms apart, BENCH_DELTAS (5000) of them), which the server coalesces before the page:
//   the page's long tasks while it streams (PerformanceObserver 'longtask').
// Targets (issue 14): 100 nodes drawn in under 200 ms; no task over 100 ms while streaming.
import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { makeTempRepo } from '../test/support/git-repos.js';
import { DESKTOP, ensureWebBuilt, launchBrowser } from '../test/support/browser.js';
import { callJson, printFigures, round, stats, withStandaloneCairn } from './support.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const deltas = Number(process.env.BENCH_DELTAS ?? 5000);
const NODES = 100;
const LAYER = 10;
const EDGES = NODES - LAYER;

const hundredNodes = [
  'name: hundred',
  'description: ten layers of ten quick nodes',
  'nodes:',
  ...Array.from({ length: NODES }, (_, index) =>
    [
      `  - id: n${index}`,
      ...(index >= LAYER ? [`    depends_on: [n${index - LAYER}]`] : []),
      '    bash: "true"',
    ].join('\n'),
  ),
  '',
].join('\n');

const post = <T>(base: string, path: string, body: unknown) => callJson<T>(base, 'POST', path, body);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function finishedHundredNodeRun(base: string, conversationId: string): Promise<string> {
  const { runId } = await post<{ runId: string }>(base, '/api/workflows/hundred/run', {
    message: 'draw me',
    conversationId,
  });
  for (;;) {
    const { run } = await callJson<{ run: { status: string } }>(base, 'GET', `/api/workflows/runs/${runId}`);
    if (run.status === 'completed') return runId;
    console.error(`[bench] waiting for the ${NODES}-node run: ${run.status}`);
    if (['failed', 'cancelled', 'abandoned'].includes(run.status)) throw new Error(`the run ${run.status}`);
    await sleep(5000);
  }
}

/**
 * Installed before the page's scripts: each frame, whether the run's graph is drawn as a user sees
 * it: all its nodes there, the first and the last visible inside the graph's box and on different
 * rows (laid out in layers and fitted, not piled up or still at zoom 1), and all its edges. The time
 * is taken in a task queued from that frame, which runs once the frame is rendered (React Flow's
 * measuring of the nodes, which happens before the paint, included).
 */
const WATCH_GRAPH = `
  requestAnimationFrame(function check() {
    const nodes = document.querySelectorAll('.graph-node');
    const box = document.querySelector('.graph')?.getBoundingClientRect();
    const ends = nodes.length >= ${NODES} && box ? [nodes[0], nodes[nodes.length - 1]] : [];
    const rects = ends.map((node) => node.getBoundingClientRect());
    const drawn =
      rects.length === 2 &&
      rects[0].top !== rects[1].top &&
      ends.every((node) => getComputedStyle(node).visibility === 'visible') &&
      rects.every((r) => r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom) &&
      document.querySelectorAll('.graph .graph-edge').length >= ${EDGES};
    if (!drawn) return requestAnimationFrame(check);
    const channel = new MessageChannel();
    channel.port1.onmessage = () => (window.__graphDrawnAt = performance.now());
    channel.port2.postMessage(null);
  });
`;

/** Navigation → the graph drawn, and the run's data in the page → the graph drawn, in ms. */
async function drawTimes(page: Page, base: string, runId: string) {
  await page.goto(`${base}/runs/${runId}`);
  // A function, not a string: the page's Content-Security-Policy forbids evaluating strings.
  const drawnAt = (await (
    await page.waitForFunction(() => (globalThis as { __graphDrawnAt?: number }).__graphDrawnAt, undefined, {
      polling: 100,
      timeout: 60_000,
    })
  ).jsonValue()) as number;
  const dataAt = await page.evaluate<number>(
    `performance.getEntriesByType('resource')
      .filter((entry) => entry.name.endsWith('/api/workflows/runs/${runId}'))
      .map((entry) => entry.responseEnd)[0] ?? 0`,
  );
  return { fromNavigation: drawnAt, fromData: drawnAt - dataAt };
}

/**
 * BENCH_TRACE=<file>: one more cold load recorded as a Chromium performance trace (the JSON that
 * DevTools' Performance panel opens), to see where a cold drawing spends its time.
 */
async function traceColdLoad(browser: Browser, base: string, runId: string, file: string) {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.addInitScript(WATCH_GRAPH);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const events: object[] = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    traceConfig: {
      includedCategories: [
        'devtools.timeline',
        'v8.execute',
        'disabled-by-default-devtools.timeline',
        'blink.user_timing',
      ],
    },
    transferMode: 'ReportEvents',
  });
  const drawn = await drawTimes(page, base, runId);
  await cdp.send('Tracing.end');
  await done;
  writeFileSync(file, JSON.stringify({ traceEvents: events }));
  console.error(
    `[bench] traced cold load (${Math.round(drawn.fromData)} ms after the data) written to ${file}`,
  );
  await context.close();
}

const OBSERVE_LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
`;

ensureWebBuilt();
const fakes = fakeAssistants();
const repo = makeTempRepo({
  files: { 'README.md': '# bench\n', '.cairn/workflows/hundred.yaml': hundredNodes },
});
try {
  await withStandaloneCairn(fakes.env, async (base) => {
    const codebase = await post<{ id: string }>(base, '/api/codebases', { path: repo.path, name: 'bench' });
    const conversation = await post<{ platform_conversation_id: string }>(base, '/api/conversations', {
      codebase_id: codebase.id,
    });
    const runId = await finishedHundredNodeRun(base, conversation.platform_conversation_id);
    console.error(`[bench] the ${NODES}-node run ${runId} completed`);
    const browser = await launchBrowser();
    try {
      // Cold: a new browser context each time (the graph's chunk downloaded and compiled too).
      // Warm: the same tab again, the chunk cached: the layout and the drawing alone.
      const cold = { fromNavigation: [] as number[], fromData: [] as number[] };
      const warm = { fromNavigation: [] as number[], fromData: [] as number[] };
      for (let run = 0; run < runs; run += 1) {
        const context = await browser.newContext({ viewport: DESKTOP });
        await context.addInitScript(WATCH_GRAPH);
        const page = await context.newPage();
        for (const [times, load] of [
          [cold, 'cold'],
          [warm, 'warm'],
        ] as const) {
          const drawn = await drawTimes(page, base, runId);
          times.fromNavigation.push(drawn.fromNavigation);
          times.fromData.push(drawn.fromData);
          if (load === 'cold') await page.goto(`${base}/runs`);
        }
        await context.close();
      }

      if (process.env.BENCH_TRACE) await traceColdLoad(browser, base, runId, process.env.BENCH_TRACE);

      // The stream: the page open on the conversation before the answer starts.
      const chat = await post<{ platform_conversation_id: string }>(base, '/api/conversations', {
        title: 'stream bench',
      });
      const context = await browser.newContext({ viewport: DESKTOP });
      await context.addInitScript(OBSERVE_LONG_TASKS);
      const page = await context.newPage();
      await page.goto(`${base}/conversations/${chat.platform_conversation_id}`);
      await page.getByRole('textbox').first().waitFor();
      const words = Array.from({ length: deltas }, (_, index) => `w${String(index).padStart(6, '0')}`);
      const answer = words.join('');
      await page.evaluate('window.__longTasks.length = 0');
      const started = Date.now();
      await post(base, `/api/conversations/${chat.platform_conversation_id}/message`, {
        message: `[fake:slow 1]\n[fake:reply ${answer}]`,
      });
      // The answer's bubble, not the message's: the message quotes the text the fake answers.
      await page.locator('.bubble.assistant', { hasText: words.at(-1)! }).waitFor({ timeout: 120_000 });
      const streamedMs = Date.now() - started;
      console.error(`[bench] ${deltas} deltas streamed in ${streamedMs} ms`);
      const longTasks = await page.evaluate<number[]>('window.__longTasks');
      await context.close();

      printFigures('web-live', {
        command: `node bin/run-ts.mjs bench/web-live.ts (BENCH_RUNS=${runs}, BENCH_DELTAS=${deltas}), Chromium ${browser.version()}`,
        hundredNodeRun: {
          cold: {
            drawnAfterDataMs: stats(cold.fromData),
            drawnAfterNavigationMs: stats(cold.fromNavigation),
          },
          warm: {
            drawnAfterDataMs: stats(warm.fromData),
            drawnAfterNavigationMs: stats(warm.fromNavigation),
          },
        },
        stream: {
          deltas,
          streamedMs,
          deltasPerSecond: round((deltas / streamedMs) * 1000),
          longTasks: longTasks.length,
          longestTaskMs: round(Math.max(0, ...longTasks)),
        },
        targets: { drawnAfterDataMs: 200, longestTaskMs: 100 },
      });
    } finally {
      await browser.close();
    }
  });
} finally {
  repo.cleanup();
  fakes.cleanup();
}
