// Compiles Cairn into dist/ (`tsc -p tsconfig.build.json`) and tells whether that build is current.
//   node scripts/build.mjs             build now (`npm run build`)
//   node scripts/build.mjs --if-stale  build only when the sources changed since the last build
//   node scripts/build.mjs --status    print missing, stale or current
// The web page (web/ into dist/web, scripts/build-web.mjs) is built with it: by `npm run build`,
// by --if-stale, and on `cairn start` / `cairn api` (the commands that serve it) unless WEB_UI_DEV
// is set; the client commands never wait for it.
// Node built-ins only: bin/cairn.mjs imports it on every start, before anything else is loaded.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp.json');
const LOCK = join(DIST, '.build-lock');
// What bin/cairn.mjs runs.
const COMPILED_MAIN = join(DIST, 'cli/main.js');
// Besides the sources, these change what tsc emits.
const BUILD_INPUTS = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
// tsc's exit status when it found errors but wrote every output all the same.
const TSC_EMITTED_WITH_ERRORS = 2;

function say(line) {
  // stderr: the command's own output (`cairn doctor --json`) stays clean.
  process.stderr.write(`[cairn] ${line}\n`);
}

/** The folders tsc compiles, as tsconfig.build.json lists them. */
function builtFolders() {
  const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'));
  return config.include.filter((folder) => existsSync(join(ROOT, folder)));
}

/**
 * The newest modification time over the sources and build inputs, and a digest of their paths
 * (so an added, deleted or renamed file counts even when no time moved forward). One directory
 * walk and a stat per file: a few milliseconds for the few hundred files here, cheap enough for
 * every start. A file given an older time on purpose (`touch -d`, `cp -p`) is not seen: build
 * then with `npm run build`.
 */
function sourceState() {
  const paths = [];
  let newestMtimeMs = 0;
  const visit = (path) => {
    paths.push(relative(ROOT, path));
    newestMtimeMs = Math.max(newestMtimeMs, statSync(path).mtimeMs);
  };
  for (const folder of builtFolders()) {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) visit(join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  for (const file of BUILD_INPUTS) if (existsSync(join(ROOT, file))) visit(join(ROOT, file));
  const pathsDigest = createHash('sha256').update(paths.sort().join('\n')).digest('hex');
  return { newestMtimeMs, pathsDigest };
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

/** 'missing', 'stale' or 'current'. */
export function buildStatus() {
  const stamp = readStamp();
  if (!stamp || !existsSync(COMPILED_MAIN)) return 'missing';
  const now = sourceState();
  const current = now.newestMtimeMs <= stamp.newestMtimeMs && now.pathsDigest === stamp.pathsDigest;
  return current ? 'current' : 'stale';
}

/**
 * Compiles into dist/ and records what it compiled; false when nothing usable came out. Type
 * errors are printed but do not stop Cairn, as they never did when tsx ran the sources (tsc still
 * emits every file): `npm run typecheck`, which CI runs, is where they fail.
 */
function compile() {
  // Read before compiling: a file saved while tsc runs is newer than the stamp, so it is built next time.
  const state = sourceState();
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    say('cannot build: TypeScript is not installed (run `npm ci`, which installs the dev dependencies too)');
    return false;
  }
  // dist/ is not emptied first: a running Cairn may still load modules from it. Outputs of deleted
  // sources stay behind, unused: the sources no longer import them.
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  if (result.status === TSC_EMITTED_WITH_ERRORS) {
    say('built with type errors (above); `npm run typecheck` lists them');
  } else if (result.status !== 0) {
    say('build failed (errors above); CAIRN_DEV=1 runs the TypeScript sources without building');
    return false;
  }
  writeFileSync(STAMP, JSON.stringify(state));
  return true;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** A lock whose owner died, or that never got an owner's pid in half a minute. */
function lockIsAbandoned() {
  try {
    const owner = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    return owner > 0 && !isAlive(owner);
  } catch {
    try {
      return Date.now() - statSync(LOCK).mtimeMs > 30_000;
    } catch {
      return false; // released meanwhile: the next mkdir takes it
    }
  }
}

/**
 * One build at a time across processes (the tests and a scale-out start several at once): the
 * first takes dist/.build-lock (mkdir is atomic), the others wait for it and then find the build
 * current. A lock whose owner died is taken over.
 */
async function withBuildLock(work) {
  mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (lockIsAbandoned()) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(200);
    }
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds dist/ unless it is current; false when a needed build failed. */
export async function ensureBuilt({ web = commandServesWebPage() } = {}) {
  if (buildStatus() === 'current' && (!web || !(await webNeedsBuild()))) return true;
  return withBuildLock(async () => {
    // Another process may have built either while this one waited.
    const status = buildStatus();
    if (status !== 'current') {
      say(
        status === 'missing'
          ? 'building Cairn (first start only)...'
          : 'rebuilding Cairn (sources changed)...',
      );
      if (!compile()) return false;
    }
    if (web && (await webNeedsBuild())) {
      const page = await webBuild();
      say(`${page.webBuildStatus() === 'missing' ? 'building' : 'rebuilding'} the web page...`);
      page.compileWeb(); // a page that fails to build leaves the API working
    }
    return true;
  });
}

// Loaded only in a checkout that has the page (not in the bare projects the build tests make).
const HAS_WEB = existsSync(join(ROOT, 'web'));
const webBuild = () => import('./build-web.mjs');
const webNeedsBuild = async () =>
  HAS_WEB && ['missing', 'stale'].includes((await webBuild()).webBuildStatus());

/** `cairn start` and `cairn api` serve the page, unless WEB_UI_DEV leaves it to Vite's dev server. */
function commandServesWebPage() {
  const devServer = ['1', 'true', 'yes', 'on'].includes((process.env.WEB_UI_DEV ?? '').toLowerCase());
  return !devServer && ['start', 'api'].includes(process.argv[2] ?? '');
}

/** `npm run build`: both, now. */
async function compileAll() {
  return compile() && (!HAS_WEB || (await webBuild()).compileWeb());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--status')) {
    console.log(buildStatus());
  } else {
    const built = process.argv.includes('--if-stale')
      ? await ensureBuilt({ web: true })
      : await withBuildLock(compileAll);
    process.exit(built ? 0 : 1);
  }
}
