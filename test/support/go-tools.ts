import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { toolCacheDir } from '../../config/paths.js';
import { findGo } from '../../worker/temporal/find-cli.js';

// Tools some tests run (a Dockerfile linter, Caddy) are built with Go from the module proxy, once
// per version, into the tool cache beside the Temporal CLI: no binary is kept in the repository.
// A first build takes a minute or two.

/** Runs `go <args>` writing its binary into a fresh folder, then moves `produced` there to `binary`. */
function goBuild(binary: string, cwd: string, args: (partial: string) => string[], produced: string): string {
  if (existsSync(binary)) return binary;
  const go = findGo(process.env.PATH);
  if (!go) throw new Error(`Go is needed to build ${binary} for this test`);
  const folder = join(binary, '..');
  // Built beside its final name and renamed, so a build cut short never leaves a broken tool.
  const partial = join(folder, `partial-${process.pid}`);
  mkdirSync(partial, { recursive: true });
  const built = spawnSync(go, args(partial), {
    cwd,
    env: { ...process.env, GOBIN: partial },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`go ${args(partial).join(' ')} failed:\n${built.stderr}`);
  renameSync(join(partial, produced), binary);
  rmSync(partial, { recursive: true, force: true });
  return binary;
}

/** `go install module@version`, cached by version. */
export function goInstalledTool(module: string, version: string): string {
  const name = module.split('/').at(-1)!;
  const binary = join(toolCacheDir(), 'go-tools', name, version, name);
  mkdirSync(join(binary, '..'), { recursive: true });
  return goBuild(binary, join(binary, '..'), () => ['install', `${module}@${version}`], name);
}

/** `go build` of a module folder in this repository, cached by the digest of its files. */
export function goBuiltTool(folder: string, files: string[]): string {
  const digest = createHash('sha256');
  for (const file of files) digest.update(readFileSync(join(folder, file)));
  const name = folder.split('/').at(-1)!;
  const binary = join(toolCacheDir(), 'go-tools', name, digest.digest('hex').slice(0, 16), name);
  return goBuild(binary, folder, (partial) => ['build', '-o', join(partial, name), '.'], name);
}
