import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import type { Run } from '../api-types.js';
import { ClientExit, EXIT } from '../exit-codes.js';
import { followRun } from '../run-follow.js';
import { conversationFor, findCodebase, type ClientSession } from '../session.js';
import { table } from '../terminal.js';

interface WorkflowEntry {
  workflow: { name: string; description?: string; [key: string]: unknown };
  filename: string;
  source: string;
}

async function cwdOf(session: ClientSession, codebase: string | undefined): Promise<string | undefined> {
  return codebase ? (await findCodebase(session, codebase)).sourcePath : undefined;
}

export async function listWorkflows(session: ClientSession, options: { codebase?: string }): Promise<number> {
  const listing = await session.api.get<{
    workflows: WorkflowEntry[];
    errors?: { filename: string; error: string }[];
  }>('/api/workflows', { cwd: await cwdOf(session, options.codebase) });
  if (session.json) {
    session.term.out(JSON.stringify(listing));
    return EXIT.ok;
  }
  const rows = listing.workflows.map((entry) => [
    entry.workflow.name,
    entry.source,
    (entry.workflow.description ?? '').trim().split('\n')[0] ?? '',
  ]);
  for (const line of table([['NAME', 'SOURCE', 'DESCRIPTION'], ...rows])) session.term.out(line);
  for (const error of listing.errors ?? [])
    session.term.err(session.term.yellow(`${error.filename}: ${error.error}`));
  return EXIT.ok;
}

export async function showWorkflow(
  session: ClientSession,
  name: string,
  options: { codebase?: string },
): Promise<number> {
  const entry = await session.api.get<WorkflowEntry>(`/api/workflows/${encodeURIComponent(name)}`, {
    cwd: await cwdOf(session, options.codebase),
  });
  if (session.json) session.term.out(JSON.stringify(entry));
  else {
    session.term.err(session.term.dim(`# ${entry.filename} (${entry.source})`));
    session.term.write(YAML.stringify(entry.workflow));
  }
  return EXIT.ok;
}

/** Checks a definition file with the server's own rules; exit 65 when it is not valid. */
export async function validateWorkflowFile(session: ClientSession, file: string): Promise<number> {
  let definition: unknown;
  try {
    definition = YAML.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ClientExit(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
  const result = await session.api.post<{ valid: boolean; errors?: string[] }>('/api/workflows/validate', {
    definition,
  });
  if (session.json) session.term.out(JSON.stringify(result));
  else if (result.valid) session.term.out(session.term.green(`${file} is valid`));
  else for (const error of result.errors ?? []) session.term.out(session.term.red(`${file}: ${error}`));
  return result.valid ? EXIT.ok : EXIT.refused;
}

export interface RunOptions {
  codebase?: string;
  conversation?: string;
  detach?: boolean;
  wait?: boolean;
  logs?: boolean;
  /** `key=value` pairs for the workflow's declared inputs. */
  input?: string[];
}

/** `--input key=value` pairs as the request's `inputs`; a pair without `=` is a usage error. */
function inputsFrom(pairs: string[] = []): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ClientExit(`--input ${pair}: write it as key=value`, EXIT.usage);
    inputs[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return inputs;
}

/**
 * Starts a run on a new conversation (or the one named) and follows it to its end: the exit code
 * is its outcome. `--detach` prints the run id and returns at once.
 */
export async function runWorkflow(
  session: ClientSession,
  name: string,
  words: string[],
  options: RunOptions,
): Promise<number> {
  const inputs = inputsFrom(options.input);
  const conversationId = await conversationFor(session, { ...options, title: `cairn workflow run ${name}` });
  const run = await session.api.post<Run>(`/api/workflows/${encodeURIComponent(name)}/run`, {
    // The API needs a message ($ARGUMENTS); without one, the run is asked for by name.
    message: words.join(' ').trim() || name,
    conversationId,
    ...(inputs && { inputs }),
  });
  if (options.detach) {
    session.term.out(session.json ? JSON.stringify(run) : run.runId);
    return EXIT.ok;
  }
  return followRun(session.api, session.term, run.runId, {
    json: session.json,
    noWait: options.wait === false,
    logs: options.logs === true,
  });
}
