import { Context } from '@temporalio/activity';
import { stat } from 'node:fs/promises';
import type { NodeExecution, NodeOutcome } from '../../domain/runs/run-contract.js';
import { baseSubprocessEnv } from '../../infra/assistants/subprocess-env.js';
import type { ServiceContext } from '../../services/context.js';
import { processEnvFor } from '../../services/codebases/untrusted-code.js';
import { runInProcessGroup, type ProcessRunEnd } from '../../infra/processes/run-process-group.js';
import { DEFAULT_NODE_TIMEOUT_MS, formatDuration, rethrowCancellation } from './node-support.js';
import { checkScriptOutput } from './output-format.js';
import { keepHeartbeating } from '../heartbeats.js';
import { NodeLogRecorder } from './node-log-events.js';

/**
 * What bash and script nodes share: a program run in the node's folder, in a process group of
 * its own that a timeout or a cancellation stops as a whole, its standard output the node's output.
 */

/** A node's output is stored and handed to later nodes: more than this is a mistake, not data. */
export const MAX_PROCESS_OUTPUT_BYTES = 1024 * 1024;
/** How much of the end of standard error a failure quotes. */
const STDERR_TAIL_CHARS = 2048;

/** `bash -c` (and `node -e`, `python3 -c`) take the code as one argument, which Linux limits to 128 KiB. */
const MAX_SCRIPT_BYTES = 128 * 1024 - 1;

/**
 * The script's environment: Cairn's own without its secrets (as for assistants; in a fork's code
 * without the code-host tokens either), plus the node's variables. User text reaches the script
 * only through those variables.
 */
export function processNodeEnv(
  processEnv: NodeJS.ProcessEnv,
  nodeEnv: Record<string, string>,
): Record<string, string> {
  return { ...baseSubprocessEnv(processEnv), ...nodeEnv };
}

function tail(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.length <= STDERR_TAIL_CHARS ? trimmed : `…${trimmed.slice(-STDERR_TAIL_CHARS)}`;
}

function withStderr(reason: string, stderrTail: string): string {
  const quoted = tail(stderrTail);
  return quoted === '' ? reason : `${reason}: ${quoted}`;
}

/** Why the script failed, or undefined when it exited 0. */
function failureOf(end: ProcessRunEnd, timeoutMs: number, program: string): string | undefined {
  switch (end.outcome) {
    case 'exited':
      return end.exitCode === 0 ? undefined : withStderr(`exit code ${end.exitCode}`, end.stderrTail);
    case 'signalled':
      return withStderr(`killed by ${end.signal}`, end.stderrTail);
    case 'timed_out':
      return withStderr(`timed out after ${formatDuration(timeoutMs)}`, end.stderrTail);
    case 'output_too_large':
      return `output is larger than ${MAX_PROCESS_OUTPUT_BYTES / (1024 * 1024)} MB: write large results to a file in $ARTIFACTS_DIR instead`;
    case 'spawn_failed':
      return `could not start ${program}: ${end.error.message}`;
    case 'aborted':
      return 'cancelled';
  }
}

/** Text output loses the one newline that ends it, as `echo` writes it. */
function withoutTrailingNewline(stdout: string): string {
  return stdout.replace(/\r?\n$/, '');
}

/** The program to start, and how a failure to start it names it. */
export interface NodeProgram {
  command: string;
  args: string[];
  /** `bash`, `node`, `python3`, `uv (for deps)`. */
  name: string;
  kind: 'bash' | 'script';
}

export interface ProcessNodeInput extends NodeExecution {
  /** The code, as written; checked for the argument size limit. */
  code: string;
  env: Record<string, string>;
}

/**
 * Runs a node's program in the node's folder, in a process group of its own that a timeout or a
 * cancellation stops as a whole. The code is passed as it was written; nothing is spliced into it.
 */
export async function runProcessNode(
  deps: ServiceContext,
  input: ProcessNodeInput,
  program: NodeProgram,
): Promise<NodeOutcome> {
  const context = Context.current();
  const startedAt = Date.now();
  const outcome = (fields: Pick<NodeOutcome, 'status' | 'output' | 'error'>): NodeOutcome => ({
    ...fields,
    tokens: 0,
    costUsd: 0,
    durationMs: Date.now() - startedAt,
  });
  if (Buffer.byteLength(input.code) > MAX_SCRIPT_BYTES) {
    return outcome({
      status: 'failed',
      error: 'the script is longer than 128 KiB: put it in a file and run that file instead',
    });
  }
  const folder = await stat(input.cwd).catch(() => undefined);
  if (!folder?.isDirectory()) {
    return outcome({ status: 'failed', error: `the working folder ${input.cwd} does not exist` });
  }
  const timeoutMs = input.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
  const stopHeartbeats = keepHeartbeating(context);
  const log = new NodeLogRecorder(deps.db.knex, deps.logger, input, context.info.attempt);
  let end: ProcessRunEnd;
  try {
    end = await runInProcessGroup(program.command, program.args, {
      cwd: input.cwd,
      env: processNodeEnv(processEnvFor(deps.env, input.untrusted), input.env),
      signal: context.cancellationSignal,
      timeoutMs,
      maxStdoutBytes: MAX_PROCESS_OUTPUT_BYTES,
      // Bytes, with room for multi-byte characters; cut to characters later.
      stderrTailBytes: STDERR_TAIL_CHARS * 4,
      onOutput: log.output,
    });
    await log.close();
  } finally {
    stopHeartbeats();
  }
  if (end.outcome === 'aborted' || context.cancellationSignal.aborted) return rethrowCancellation(context);

  const failure = failureOf(end, timeoutMs, program.name);
  if (failure !== undefined) {
    deps.logger.info({
      event: `run.${program.kind}_node_failed`,
      runId: input.runId,
      nodeId: input.nodeId,
      program: program.name,
      outcome: end.outcome,
    });
    return outcome({ status: 'failed', error: failure });
  }
  if (!input.outputFormat)
    return outcome({ status: 'succeeded', output: withoutTrailingNewline(end.stdout) });
  const checked = checkScriptOutput(input.outputFormat, end.stdout);
  return checked.ok
    ? outcome({ status: 'succeeded', output: checked.value })
    : outcome({ status: 'failed', error: checked.error });
}
