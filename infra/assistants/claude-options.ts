import type { Options, SpawnOptions, SpawnedProcess } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeSettings } from '../../config/config-types.js';
import type { Environment } from '../../config/environment.js';
import type { ClaudeAuth } from './claude-auth.js';
import { OutputTail } from './redact.js';
import { killProcessGroup, spawnProcessGroup } from '../processes/process-groups.js';
import { baseSubprocessEnv } from './subprocess-env.js';

/** CLAUDE_BIN_PATH, else assistants.claude.claudeBinaryPath; undefined means the SDK's bundled CLI. */
export function claudeExecutablePath(environment: Environment, settings: ClaudeSettings): string | undefined {
  return environment.claude.binPath ?? settings.claudeBinaryPath;
}

/**
 * Cairn's environment without its secrets or Claude session markers, plus the chosen auth,
 * plus the repository's `env` map (the user's explicit choice for this repository, so it wins).
 */
export function claudeSubprocessEnv(
  processEnv: NodeJS.ProcessEnv,
  auth: ClaudeAuth,
  repositoryEnv: Record<string, string> = {},
): Record<string, string> {
  return { ...baseSubprocessEnv(processEnv), ...auth.env, ...repositoryEnv };
}

/**
 * Spawns the CLI as the leader of its own process group, so an abort can kill everything the
 * CLI started; the SDK alone only signals its direct child. With a custom spawner the SDK no
 * longer reads stderr, so this keeps its tail for error messages (and drains the pipe).
 */
export class ClaudeProcessGroup {
  /** Every group this turn started (the SDK may spawn again): a kill reaches each of them. */
  private readonly pids: number[] = [];
  private readonly killed = new Map<number, Promise<void>>();
  readonly stderr = new OutputTail();

  /** The group started last, for diagnostics. */
  get pid(): number | undefined {
    return this.pids.at(-1);
  }

  readonly spawn = (options: SpawnOptions): SpawnedProcess => {
    const child = spawnProcessGroup(options.command, options.args, { cwd: options.cwd, env: options.env });
    if (child.pid !== undefined) this.pids.push(child.pid);
    child.stderr?.on('data', (data: Buffer) => this.stderr.push(data));
    // The SDK aborts this signal after its own graceful-close window: then nothing may survive.
    options.signal.addEventListener('abort', () => void this.kill(), { once: true });
    return child as SpawnedProcess;
  };

  /** Idempotent per group: abort, timeout and cleanup may all ask. */
  kill(): Promise<void> {
    for (const pid of this.pids) if (!this.killed.has(pid)) this.killed.set(pid, killProcessGroup(pid));
    return Promise.all(this.killed.values()).then(() => undefined);
  }
}

export interface ClaudeQueryInput {
  cwd: string;
  model?: string;
  resume?: string;
  settingSources: ClaudeSettings['settingSources'];
  executablePath?: string;
  env: Record<string, string>;
  abortController: AbortController;
  group: ClaudeProcessGroup;
}

/** Options for an unattended turn: no one is there to approve a tool call, so none are asked. */
export function claudeQueryOptions(input: ClaudeQueryInput): Options {
  const options: Options = {
    cwd: input.cwd,
    settingSources: [...input.settingSources],
    env: input.env,
    abortController: input.abortController,
    spawnClaudeCodeProcess: input.group.spawn,
    permissionMode: 'bypassPermissions',
    allowDangerouslySkipPermissions: true,
    // Text deltas as they are generated, not only whole blocks.
    includePartialMessages: true,
    // Without it this SDK starts Claude Code with an empty system prompt.
    systemPrompt: { type: 'preset', preset: 'claude_code' },
  };
  if (input.model) options.model = input.model;
  if (input.resume) {
    options.resume = input.resume;
    // Each turn continues a copy: an attempt that dies half way leaves the session it resumed
    // untouched, so the turn's next attempt starts from the same context.
    options.forkSession = true;
  }
  if (input.executablePath) options.pathToClaudeCodeExecutable = input.executablePath;
  return options;
}
