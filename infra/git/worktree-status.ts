import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit } from './run-git.js';

/**
 * Files Cairn copied into a worktree (`.cairn/`, worktree.copyFiles), with their content hashes.
 * Kept in the worktree's private git directory, so it is never committed and goes away with
 * the worktree. Without it an untracked `.cairn/` would make every worktree look dirty forever.
 */
const MANIFEST = 'cairn-copied-files.json';

interface Manifest {
  version: 1;
  files: Record<string, string>;
}

async function sha256(path: string): Promise<string | undefined> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch {
    return undefined;
  }
}

async function manifestPath(worktreePath: string): Promise<string> {
  const gitDir = (await runGit(['rev-parse', '--absolute-git-dir'], { cwd: worktreePath })).trim();
  return join(gitDir, MANIFEST);
}

export async function writeCopyManifest(worktreePath: string, files: readonly string[]): Promise<void> {
  const manifest: Manifest = { version: 1, files: {} };
  for (const file of files) {
    const hash = await sha256(join(worktreePath, file));
    if (hash) manifest.files[file] = hash;
  }
  await writeFile(await manifestPath(worktreePath), JSON.stringify(manifest, null, 2));
}

/** The files Cairn copied into the worktree, with their content hashes when copied. */
export async function readCopyManifest(worktreePath: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(await manifestPath(worktreePath), 'utf8')) as Partial<Manifest>;
    return parsed.files ?? {};
  } catch {
    return {};
  }
}

/** Whether Cairn copied this file into the worktree and nobody has changed it since. */
export async function isUnchangedCopy(
  worktreePath: string,
  path: string,
  copied: Record<string, string>,
): Promise<boolean> {
  const hash = copied[path];
  return hash !== undefined && (await sha256(join(worktreePath, path))) === hash;
}

/** Paths `git status` reports, from `--porcelain -z` (a rename or copy carries its old path too). */
function statusPaths(output: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    paths.push(field.slice(3));
    if (status.includes('R') || status.includes('C')) i++; // the next field is the original path
  }
  return paths;
}

/**
 * Changes that would be lost if the worktree went away: modified, staged, deleted or untracked
 * files (ignored ones excluded), except files Cairn copied in and nobody has changed since.
 */
export async function uncommittedChanges(worktreePath: string): Promise<string[]> {
  const output = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all'], {
    cwd: worktreePath,
  });
  const copied = await readCopyManifest(worktreePath);
  const changes: string[] = [];
  for (const path of statusPaths(output)) {
    if (await isUnchangedCopy(worktreePath, path, copied)) continue;
    changes.push(path);
  }
  return changes;
}

export async function hasUncommittedChanges(worktreePath: string): Promise<boolean> {
  return (await uncommittedChanges(worktreePath)).length > 0;
}
