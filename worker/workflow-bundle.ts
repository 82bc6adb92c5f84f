import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../config/logger.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
// Workflow code may import only from these folders (ARCHITECTURE.md section 2).
const WORKFLOW_SOURCE_DIRS = ['workflows', 'domain'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|json)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Changes whenever a workflow source file or the workflow SDK changes. */
function bundleKey(): string {
  const hash = createHash('sha256');
  const sdk = JSON.parse(
    readFileSync(join(projectRoot, 'node_modules/@temporalio/workflow/package.json'), 'utf8'),
  );
  hash.update(`sdk:${sdk.version}\n`);
  for (const dir of WORKFLOW_SOURCE_DIRS) {
    for (const file of sourceFiles(join(projectRoot, dir))) {
      hash.update(`${relative(projectRoot, file)}\n`).update(readFileSync(file));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The prebuilt workflow bundle, from the cache when the sources are unchanged: bundling takes
 * seconds, a cached bundle loads in milliseconds, which keeps `cairn start` fast.
 */
export async function loadWorkflowBundle(cacheDir: string, logger: Logger): Promise<{ code: string }> {
  const file = join(cacheDir, `workflow-bundle-${bundleKey()}.js`);
  if (existsSync(file)) return { code: readFileSync(file, 'utf8') };
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(projectRoot, 'workflows/index.ts'),
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
