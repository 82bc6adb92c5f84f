import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { findCodebase } from '../../db/repositories/codebases.js';
import { findConversation } from '../../db/repositories/conversations.js';
import type { WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { workspaceAt } from '../codebases/workspace.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { requireRun } from './run-reads.js';

/** A listing stops after this many files (and says so). */
export const MAX_ARTIFACTS = 1000;
/** Folders deeper than this are not walked: an artifact tree is a few levels, not a maze. */
const MAX_DEPTH = 16;
/** The first bytes read to tell text from binary. */
const SNIFF_BYTES = 8192;

/**
 * Where a run's `$ARTIFACTS_DIR` is: under its codebase's workspace, or under the home for a run
 * without a codebase. services/runs/prepare-run.ts makes the folder with this same rule.
 */
export function artifactsDirFor(home: string, codebaseSourcePath: string | undefined, runId: string): string {
  return codebaseSourcePath
    ? join(workspaceAt(dirname(codebaseSourcePath)).artifacts, runId)
    : join(home, 'runs', runId, 'artifacts');
}

/** The run's artifacts folder: its codebase is the run's, else its conversation's (as when it started). */
async function runArtifactsDir(context: ServiceContext, run: WorkflowRun): Promise<string> {
  const { reader } = context.db;
  let codebaseId = run.codebaseId;
  if (!codebaseId && run.conversationId)
    codebaseId = (await findConversation(reader, run.conversationId))?.codebaseId ?? null;
  const codebase = codebaseId ? await findCodebase(context.db.knex, codebaseId) : undefined;
  return artifactsDirFor(context.home, codebase?.sourcePath, run.id);
}

export interface RunArtifact {
  /** The file's path inside the artifacts folder, `/`-separated. */
  path: string;
  name: string;
  size: number;
  modifiedAt: string;
}

export interface RunArtifactList {
  runId: string;
  artifacts: RunArtifact[];
  truncated: boolean;
}

/** The folder's real path, or undefined when the run wrote nothing (or it was cleaned up). */
async function existingFolder(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    return (await lstat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The regular files a run left in its artifacts folder, walked without following links (a link,
 * a device, a socket is not listed), sorted by path, at most MAX_ARTIFACTS.
 */
export async function listRunArtifacts(context: ServiceContext, runId: string): Promise<RunArtifactList> {
  const run = await requireRun(context, runId);
  const root = await existingFolder(await runArtifactsDir(context, run));
  const artifacts: RunArtifact[] = [];
  let truncated = false;
  const walk = async (folder: string, depth: number): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (artifacts.length >= MAX_ARTIFACTS) {
        truncated = true;
        return;
      }
      const full = join(folder, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH) await walk(full, depth + 1);
      else if (entry.isFile()) {
        const stats = await lstat(full).catch(() => undefined);
        if (!stats?.isFile()) continue;
        artifacts.push({
          path: relative(root!, full).split(sep).join('/'),
          name: entry.name,
          size: stats.size,
          modifiedAt: stats.mtime.toISOString(),
        });
      }
    }
  };
  if (root) await walk(root, 0);
  return { runId: run.id, artifacts, truncated };
}

const badPath = (detail: string) =>
  ServiceError.invalid('invalid_artifact_path', detail, [{ path: '/params/path', message: detail }]);

const noArtifact = (runId: string, path: string) =>
  ServiceError.notFound(`Run ${runId} has no artifact ${JSON.stringify(path)}.`, 'artifact_not_found');

/** A path as the listing gives it: relative, `/`-separated, no `.` or `..` part, no NUL or backslash. */
function checkedPath(path: string): string[] {
  if (path.includes('\0')) throw badPath('the path contains a NUL character');
  if (path.includes('\\')) throw badPath('the path contains a backslash: separate folders with /');
  if (isAbsolute(path) || path.startsWith('/'))
    throw badPath('the path must be relative to the artifacts folder');
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw badPath('the path must not contain empty, "." or ".." parts');
  return parts;
}

export interface OpenedArtifact {
  name: string;
  size: number;
  modifiedAt: string;
  /** `text/plain; charset=utf-8` for UTF-8 text without NUL bytes, else `application/octet-stream`. */
  contentType: string;
  file: FileHandle;
}

/** UTF-8 text with no NUL in the bytes read: anything else is sent as bytes, never rendered. */
function looksLikeText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  // A multi-byte character cut at the end of the sample is still text.
  for (let cut = 0; cut < 4 && cut <= bytes.length; cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, bytes.length - cut));
      return true;
    } catch {
      // try with the last bytes left out
    }
  }
  return false;
}

/**
 * One artifact, opened for reading. The path stays inside the run's artifacts folder: `..`,
 * absolute paths and NUL are refused, a link is followed only when it ends inside the folder
 * (its real path is checked), and only a regular file is sent (never a device or a FIFO, checked
 * on the opened file so a swap after the check does not change what is read).
 */
export async function openRunArtifact(
  context: ServiceContext,
  runId: string,
  path: string,
): Promise<OpenedArtifact> {
  const parts = checkedPath(path);
  const run = await requireRun(context, runId);
  const root = await existingFolder(await runArtifactsDir(context, run));
  if (!root) throw noArtifact(run.id, path);
  let real: string;
  try {
    real = await realpath(join(root, ...parts));
  } catch {
    throw noArtifact(run.id, path);
  }
  if (!real.startsWith(root + sep)) throw badPath('the path leads outside the run’s artifacts folder');
  // O_NONBLOCK: opening a FIFO must not wait for a writer before the check below refuses it.
  const file = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(
    () => undefined,
  );
  if (!file) throw noArtifact(run.id, path);
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw badPath('the path is not a regular file');
    const sample = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
    const { bytesRead } = await file.read(sample, 0, sample.length, 0);
    return {
      name: parts.at(-1)!,
      size: stats.size,
      modifiedAt: stats.mtime.toISOString(),
      contentType: looksLikeText(sample.subarray(0, bytesRead))
        ? 'text/plain; charset=utf-8'
        : 'application/octet-stream',
      file,
    };
  } catch (error) {
    await file.close();
    throw error;
  }
}
