// Builds the workflow bundle in a process of its own (forked by workflow-bundle.ts) and writes it
// to the file named by the first argument. The bundler (webpack, swc and their caches) takes
// 80-90 MB that the V8 heap of the process that loaded it keeps after the build: here they go
// when this process exits, so a first `cairn start` holds no more memory than any later one.
// Its warnings and errors go to the parent over IPC, which logs them.
import { bundleWorkflowCode } from '@temporalio/worker';
import { renameSync, writeFileSync } from 'node:fs';

export interface BundleMessage {
  level: 'warn' | 'error';
  message: string;
  meta?: Record<string, unknown>;
}

/** Bundles `entry` with `devtool` into `file`, atomically: a concurrent reader never sees half a bundle. */
export async function buildBundleFile(
  entry: string,
  devtool: string,
  file: string,
  interceptorModules: readonly string[] = [],
): Promise<void> {
  const report = (level: BundleMessage['level']) => (message: string, meta?: Record<string, unknown>) =>
    process.send?.({ level, message, meta } satisfies BundleMessage);
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: [...interceptorModules],
    webpackConfigHook: (config) => ({ ...config, devtool }),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: report('warn'), error: report('error') },
  });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

const [entry, devtool, file, ...interceptorModules] = process.argv.slice(2);
if (entry && devtool && file && process.send) {
  buildBundleFile(entry, devtool, file, interceptorModules).then(
    () => process.exit(0),
    (error: unknown) => {
      process.send!({
        level: 'error',
        message: String((error as Error)?.stack ?? error),
      } satisfies BundleMessage);
      process.exit(1);
    },
  );
}
