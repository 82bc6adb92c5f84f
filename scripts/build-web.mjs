// Builds the web page (web/, React + Vite) into dist/web and precompresses it, when its sources
// changed since the last build. scripts/build.mjs calls it; Node built-ins only, like that script.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'web');
export const WEB_DIST = join(ROOT, 'dist', 'web');
const STAMP = join(ROOT, 'dist', '.web-build-stamp.json');
// Besides web/ itself, these change what Vite emits.
const WEB_INPUTS = ['package-lock.json', 'domain/runs/run-state-machine.ts', 'domain/runs/run-status.ts'];
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt']);
// Smaller files gain nothing worth a second request path.
const MIN_COMPRESS_BYTES = 512;

function say(line) {
  process.stderr.write(`[cairn] ${line}\n`);
}

/** The newest modification time over the page's sources and a digest of their paths. */
function webSourceState() {
  const paths = [];
  let newestMtimeMs = 0;
  const visit = (path) => {
    paths.push(relative(ROOT, path));
    newestMtimeMs = Math.max(newestMtimeMs, statSync(path).mtimeMs);
  };
  for (const entry of readdirSync(WEB, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) visit(join(entry.parentPath ?? entry.path, entry.name));
  }
  for (const file of WEB_INPUTS) if (existsSync(join(ROOT, file))) visit(join(ROOT, file));
  const pathsDigest = createHash('sha256').update(paths.sort().join('\n')).digest('hex');
  return { newestMtimeMs, pathsDigest };
}

/** 'missing', 'stale' or 'current'; 'absent' when this checkout has no web/ folder. */
export function webBuildStatus() {
  if (!existsSync(WEB)) return 'absent';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'missing';
  }
  if (!existsSync(join(WEB_DIST, 'index.html'))) return 'missing';
  const now = webSourceState();
  return now.newestMtimeMs <= stamp.newestMtimeMs && now.pathsDigest === stamp.pathsDigest
    ? 'current'
    : 'stale';
}

/** Writes `name.br` and `name.gz` beside every text file of the build, for the server to send as is. */
function precompress(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(path))) continue;
    const bytes = readFileSync(path);
    if (bytes.length < MIN_COMPRESS_BYTES) continue;
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  }
}

/**
 * Runs `vite build` in a child process (its memory leaves with it) and precompresses the output;
 * false when Vite is not installed (a production install without dev dependencies) or failed.
 * The core then serves its plain home page, so a failed page build never stops Cairn.
 */
export function compileWeb() {
  const state = webSourceState();
  let vite;
  try {
    vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    say(
      'cannot build the web page: Vite is not installed (run `npm ci`, which installs the dev dependencies too)',
    );
    return false;
  }
  const result = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(WEB, 'vite.config.ts'), '--logLevel', 'warn'],
    { cwd: ROOT, stdio: ['ignore', 2, 2] },
  );
  if (result.status !== 0) {
    say('the web page failed to build (errors above); the API works, `/` shows a plain page');
    return false;
  }
  precompress(WEB_DIST);
  writeFileSync(STAMP, JSON.stringify(state));
  return true;
}
