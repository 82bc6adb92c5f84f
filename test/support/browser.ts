import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it when missing); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
export const PHONE = { width: 375, height: 760 };
export const DESKTOP = { width: 1280, height: 860 };

/** Builds the web page (dist/web) when its sources changed, as `npm start` would. */
export function ensureWebBuilt(): void {
  const script = `const web = await import(${JSON.stringify(`${ROOT}scripts/build-web.mjs`)});
if (web.webBuildStatus() !== 'current' && !web.compileWeb()) process.exit(1);`;
  const build = spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`building the web page failed (exit ${build.status})`);
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: apt-get install chromium, or set CHROMIUM_PATH`);
  // No sandbox: the tests may run as root, where Chromium refuses its sandbox.
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

/** How far the page is wider than its window (0: no horizontal scroll). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical findings on the page as it stands. */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>('axe.run().then((result) => result.violations)');
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: false });
}

/**
 * A TCP relay on loopback in front of a server: the browser talks through it, and `cut()` drops
 * every open connection at once, as a network hiccup would (the page must reconnect and resume).
 */
export async function cuttableRelay(
  targetPort: number,
): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => open.forEach((socket) => socket.destroy()),
    close: async () => {
      open.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
