import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../config/logger.js';
import { PACKAGE_ROOT } from '../config/package-root.js';
import type { BundleMessage } from './build-workflow-bundle.js';
import { installedVersion, workflowSources } from './workflow-sources.js';

// The TypeScript sources are bundled whether Cairn runs from them or from dist/: the bundler
// compiles them itself, and the bundle (and its key) is then the same in both modes.
const WORKFLOWS_ENTRY = join(PACKAGE_ROOT, 'workflows/index.ts');

// The bundle's inline source map keeps its mappings (workflow stack traces still name our files
// and lines) but not a copy of every source: each Worker that runs workflows parses the map into
// its own isolate, and the copies cost about 10 MB per Worker. Part of the bundle key.
const SOURCE_MAP = 'inline-nosources-source-map';

/**
 * Changes whenever a file the workflow code reaches (from `entry`, import by import), a package
 * it imports, or the bundler changes; an edit anywhere else leaves the cached bundle in use.
 */
export function workflowBundleKey(
  entry: string,
  projectRoot: string,
  interceptorModules: readonly string[] = [],
): string {
  const hash = createHash('sha256');
  const files = new Set<string>();
  const packages = new Set<string>();
  for (const start of [entry, ...interceptorModules]) {
    const sources = workflowSources(start);
    for (const file of sources.files) files.add(file);
    for (const name of sources.packages) packages.add(name);
  }
  hash.update(`devtool:${SOURCE_MAP}\n`);
  for (const module of interceptorModules) hash.update(`interceptors:${relative(projectRoot, module)}\n`);
  for (const name of ['@temporalio/worker', ...[...packages].sort()]) {
    hash.update(`package:${name}@${installedVersion(name, projectRoot) ?? 'none'}\n`);
  }
  for (const file of files) hash.update(`${relative(projectRoot, file)}\n`).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

// Compiled beside this file in dist/; the TypeScript source when Cairn runs from its sources.
const BUILDER = new URL(
  `./build-workflow-bundle${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** Runs the bundler in a child process (build-workflow-bundle.ts says why), logging what it reports. */
function buildInChild(file: string, interceptorModules: readonly string[], logger: Logger): Promise<void> {
  const builder = fileURLToPath(BUILDER);
  // A TypeScript builder needs the loader, which the parent may have registered through its API
  // alone (CAIRN_DEV=1); named by its absolute location, as the child's cwd may be anywhere.
  const execArgv =
    builder.endsWith('.ts') && !process.execArgv.some((arg) => arg.includes('tsx'))
      ? [...process.execArgv, `--import=${import.meta.resolve('tsx')}`]
      : process.execArgv;
  return new Promise((resolve, reject) => {
    const child = fork(builder, [WORKFLOWS_ENTRY, SOURCE_MAP, file, ...interceptorModules], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let failure = '';
    child.on('message', ({ level, message, meta }: BundleMessage) => {
      logger[level]({ ...meta }, message);
      if (level === 'error') failure = message;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `building the workflow bundle failed (${signal ?? `exit ${code}`})${failure ? `: ${failure}` : ''}`,
          ),
        );
    });
  });
}

/**
 * The prebuilt workflow bundle, from the cache when the sources are unchanged: bundling takes
 * seconds, a cached bundle loads in milliseconds, which keeps `cairn start` fast. Workflow
 * interceptor modules (tracing's, when it is on) are part of the bundle and of its key.
 */
export async function loadWorkflowBundle(
  cacheDir: string,
  logger: Logger,
  interceptorModules: readonly string[] = [],
): Promise<{ code: string }> {
  const key = workflowBundleKey(WORKFLOWS_ENTRY, PACKAGE_ROOT, interceptorModules);
  const file = join(cacheDir, `workflow-bundle-${key}.js`);
  if (!existsSync(file)) {
    const started = Date.now();
    mkdirSync(cacheDir, { recursive: true });
    await buildInChild(file, interceptorModules, logger);
    logger.info(
      { event: 'worker.bundle_built', durationMs: Date.now() - started, file },
      'workflow bundle built',
    );
  }
  return { code: readFileSync(file, 'utf8') };
}
