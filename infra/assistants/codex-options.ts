import { createRequire } from 'node:module';
import path from 'node:path';
import type { ModelReasoningEffort, ThreadOptions, WebSearchMode } from '@openai/codex-sdk';
import type { CodexSettings } from '../../config/config-types.js';
import type { Environment } from '../../config/environment.js';
import { isExecutableFile } from '../../config/executables.js';
import { packagePath } from '../../config/package-root.js';

/** Runs the codex CLI as a process-group leader; see process-group-launcher.mjs (not compiled: a source path). */
export const PROCESS_GROUP_LAUNCHER = packagePath('infra', 'assistants', 'process-group-launcher.mjs');

export function configuredCodexPath(environment: Environment, settings: CodexSettings): string | undefined {
  return environment.codex.binPath ?? settings.codexBinaryPath;
}

const NATIVE_PACKAGES: Record<string, [string, string]> = {
  'linux-x64': ['@openai/codex-linux-x64', 'x86_64-unknown-linux-musl'],
  'linux-arm64': ['@openai/codex-linux-arm64', 'aarch64-unknown-linux-musl'],
  'darwin-x64': ['@openai/codex-darwin-x64', 'x86_64-apple-darwin'],
  'darwin-arm64': ['@openai/codex-darwin-arm64', 'aarch64-apple-darwin'],
};

/**
 * Where the SDK would find its bundled CLI (it does not export that lookup). Cairn needs the
 * path itself because it starts the CLI through the launcher; undefined lets the SDK decide.
 */
export function bundledCodexPath(): string | undefined {
  const [pkg, triple] = NATIVE_PACKAGES[`${process.platform}-${process.arch}`] ?? [];
  if (!pkg || !triple) return undefined;
  try {
    const codexRequire = createRequire(createRequire(import.meta.url).resolve('@openai/codex/package.json'));
    const vendor = path.join(path.dirname(codexRequire.resolve(`${pkg}/package.json`)), 'vendor', triple);
    return [path.join(vendor, 'bin', 'codex'), path.join(vendor, 'codex', 'codex')].find(isExecutableFile);
  } catch {
    return undefined;
  }
}

/**
 * Unattended work: nobody is there to approve a command, and the turn runs in a worktree made
 * for it, so no sandbox and no approvals (as Claude runs with bypassPermissions).
 */
export function codexThreadOptions(settings: CodexSettings, cwd: string): ThreadOptions {
  const options: ThreadOptions = {
    workingDirectory: cwd,
    skipGitRepoCheck: true,
    sandboxMode: 'danger-full-access',
    approvalPolicy: 'never',
  };
  if (settings.model) options.model = settings.model;
  if (settings.modelReasoningEffort) {
    options.modelReasoningEffort = settings.modelReasoningEffort as ModelReasoningEffort;
  }
  if (settings.webSearchMode) options.webSearchMode = settings.webSearchMode as WebSearchMode;
  if (settings.additionalDirectories.length > 0)
    options.additionalDirectories = [...settings.additionalDirectories];
  return options;
}
