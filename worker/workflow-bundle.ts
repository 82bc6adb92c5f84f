import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Logger } from '../config/logger.js';
import { PACKAGE_ROOT } from '../config/package-root.js';
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
export function workflowBundleKey(entry: string, projectRoot: string): string {
  const hash = createHash('sha256');
  const { files, packages } = workflowSources(entry);
  hash.update(`devtool:${SOURCE_MAP}\n`);
  for (const name of ['@temporalio/worker', ...packages]) {
    hash.update(`package:${name}@${installedVersion(name, projectRoot) ?? 'none'}\n`);
  }
  for (const file of files) hash.update(`${relative(projectRoot, file)}\n`).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The prebuilt workflow bundle, from the cache when the sources are unchanged: bundling takes
 * seconds, a cached bundle loads in milliseconds, which keeps `cairn start` fast.
 */
export async function loadWorkflowBundle(cacheDir: string, logger: Logger): Promise<{ code: string }> {
  const file = join(cacheDir, `workflow-bundle-${workflowBundleKey(WORKFLOWS_ENTRY, PACKAGE_ROOT)}.js`);
  if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_ENTRY,
    webpackConfigHook: (config) => ({ ...config, devtool: SOURCE_MAP }),
    logger: {
      log: () => {},
      trace: () => {},
      debug: () => {},
      info: () => {},
      warn: (message: string, meta?: Record<string, unknown>) => logger.warn({ ...meta }, message),
      error: (message: string, meta?: Record<string, unknown>) => logger.error({ ...meta }, message),
    },
  });
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, file); // atomic: a concurrent reader never sees half a bundle
  logger.info(
    { event: 'worker.bundle_built', durationMs: Date.now() - started, file },
    'workflow bundle built',
  );
  return { code };
}
