import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEMPORAL_CLI_MODULE, TEMPORAL_CLI_VERSION } from './cli-version.js';
import { cachedCliPath } from './find-cli.js';

export interface BuildOptions {
  goBinary: string;
  toolCacheDir: string;
  env: NodeJS.ProcessEnv;
  /** Progress lines for the console: a first build takes minutes. */
  say: (line: string) => void;
}

// A lock older than this belongs to a build that died; the longest build seen here took ~5 min.
const STALE_LOCK_MS = 30 * 60_000;

/**
 * Builds the Temporal CLI with `go install` into Cairn's tool cache and returns its path.
 * A lock directory makes concurrent callers (a test run and `npm start`) wait for one build.
 */
export async function buildTemporalCli(options: BuildOptions): Promise<string> {
  const target = cachedCliPath(options.toolCacheDir);
  const targetDir = dirname(target);
  mkdirSync(targetDir, { recursive: true });
  const lock = join(targetDir, '.build-lock');
  await acquireLock(lock, options.say);
  try {
    if (exists(target)) return target; // another process finished the build while we waited
    const gobin = mkdtempSync(join(targetDir, '.gobin-'));
    try {
      options.say(
        `[temporal] building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go (first run only; this takes several minutes)...`,
      );
      await runGoInstall(options, gobin);
      // Published as a copy, not the linker's own file: the linker writes its output through a
      // memory map, and while those pages stay cached each server started from the file maps
      // far more of it (likely whole large cache blocks per page fault). Measured here: 117-126
      // MB of the binary resident from the linker's file; 70 MB from a copy, or from the same
      // file once the kernel's cache was dropped (bench/README.md, 2026-11-30).
      const copy = join(gobin, 'temporal.copy');
      copyFileSync(join(gobin, 'temporal'), copy);
      renameSync(copy, target);
      options.say(`[temporal] built ${target}`);
      return target;
    } finally {
      rmSync(gobin, { recursive: true, force: true });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A lock whose owner died (killed mid-build) or that is very old is abandoned. */
function isAbandoned(lock: string): boolean {
  try {
    const owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    if (Number.isInteger(owner) && owner > 0) {
      try {
        process.kill(owner, 0);
      } catch {
        return true;
      }
    }
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
  } catch {
    // No pid yet (the owner is between mkdir and write), or the lock just vanished.
    try {
      return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false;
    }
  }
}

async function acquireLock(lock: string, say: (line: string) => void): Promise<void> {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (isAbandoned(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      say('[temporal] another process is building the Temporal CLI; waiting for it...');
      announced = true;
    }
    await sleep(1000);
  }
}

function runGoInstall(options: BuildOptions, gobin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.goBinary, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: {
        ...options.env,
        GOBIN: gobin,
        CGO_ENABLED: options.env.CGO_ENABLED ?? '0',
        GOFLAGS: '-buildvcs=false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const ticker = setInterval(() => options.say('[temporal] still building the Temporal CLI...'), 30_000);
    child.on('error', (error) => {
      clearInterval(ticker);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} failed (exit ${code}):\n${output}`,
          ),
        );
    });
  });
}
