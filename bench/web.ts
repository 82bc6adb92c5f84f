// The web page's first load, in Debian's Chromium against a real `cairn start` (SQLite, embedded
// Temporal) on loopback: the compressed JavaScript the first page needs (Brotli, as sent) and the
// time from navigation until the conversations page is interactive (its list drawn and its
// "New conversation" button enabled), cold cache each time, BENCH_RUNS (5) runs.
// Target (issue 14): under 250 KB of compressed JavaScript; interactive within 1 s on loopback.
import type { Response } from 'playwright-core';
import { ensureWebBuilt, launchBrowser, DESKTOP } from '../test/support/browser.js';
import { printFigures, round, stats, withStandaloneCairn } from './support.js';

const runs = Number(process.env.BENCH_RUNS ?? 5);

ensureWebBuilt();
await withStandaloneCairn({}, async (base) => {
  const browser = await launchBrowser();
  try {
    const times: number[] = [];
    let scriptBytes = 0;
    let scripts: string[] = [];
    for (let run = 0; run < runs; run += 1) {
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      const loaded: Response[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script') loaded.push(response);
      });
      await page.goto(`${base}/`);
      await page
        .getByText(/No conversations yet|Untitled conversation/)
        .first()
        .waitFor();
      await page.getByRole('button', { name: 'New conversation' }).isEnabled();
      times.push(await page.evaluate<number>('performance.now()'));
      if (run === 0) {
        // The bytes on the wire: each script's Content-Length as sent with Brotli.
        const sizes = await Promise.all(
          loaded.map(async (response) => {
            const answer = await fetch(response.url(), { headers: { 'Accept-Encoding': 'br' } });
            // fetch decodes the body: the header has the size that crossed the wire.
            await answer.arrayBuffer();
            return Number(answer.headers.get('content-length'));
          }),
        );
        scriptBytes = sizes.reduce((sum, size) => sum + size, 0);
        scripts = loaded.map((response) => new URL(response.url()).pathname);
      }
      await context.close();
    }
    printFigures('web', {
      command: `node bin/run-ts.mjs bench/web.ts (BENCH_RUNS=${runs}), Chromium ${browser.version()}`,
      firstPageScripts: scripts,
      firstPageJavaScriptKB: round(scriptBytes / 1024),
      interactiveMs: stats(times),
      targets: { firstPageJavaScriptKB: 250, interactiveMs: 1000 },
    });
  } finally {
    await browser.close();
  }
});
