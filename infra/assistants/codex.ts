import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CodexSettings } from '../../config/config-types.js';
import type { Environment } from '../../config/environment.js';
import type { Logger } from '../../config/logger.js';
import { prepareCodexAuth } from './codex-auth.js';
import { CodexEventMapper } from './codex-events.js';
import {
  PROCESS_GROUP_LAUNCHER,
  bundledCodexPath,
  codexThreadOptions,
  configuredCodexPath,
} from './codex-options.js';
import { cancelled, checkLaunchable } from './launch-checks.js';
import { killProcessGroup } from '../processes/process-groups.js';
import { redactSecrets } from './redact.js';
import { baseSubprocessEnv } from './subprocess-env.js';
import {
  AssistantError,
  type AssistantChunk,
  type AssistantProvider,
  type AssistantTurnRequest,
} from './types.js';

export interface CodexProviderDeps {
  environment: Environment;
  settings: CodexSettings;
  logger: Logger;
  home: string;
  processEnv: NodeJS.ProcessEnv;
}

/** The launcher is a `#!/usr/bin/env node` script: make sure it finds the node running Cairn. */
function withNodeOnPath(env: Record<string, string>): Record<string, string> {
  const nodeDir = path.dirname(process.execPath);
  return { ...env, PATH: [nodeDir, env.PATH].filter(Boolean).join(path.delimiter) };
}

async function killRecordedGroup(pidFile: string): Promise<void> {
  const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
  if (Number.isInteger(pid) && pid > 1) await killProcessGroup(pid);
}

/** Codex through the Codex SDK: one `codex exec` per turn, resumed by thread id. */
export class CodexProvider implements AssistantProvider {
  readonly name = 'codex' as const;

  constructor(private readonly deps: CodexProviderDeps) {}

  async *runTurn(request: AssistantTurnRequest): AsyncGenerator<AssistantChunk> {
    const { environment, settings, logger, home, processEnv } = this.deps;
    if (request.signal.aborted) throw cancelled();
    // Loaded at the first turn, like the Claude SDK: nothing at start-up needs it.
    const { Codex } = await import('@openai/codex-sdk');
    const auth = await prepareCodexAuth(environment.codex, home);
    const configured = configuredCodexPath(environment, settings);
    checkLaunchable(configured, request.cwd, 'CODEX_BIN_PATH');
    const executable = configured ?? bundledCodexPath();

    // The launcher runs the real CLI in its own process group and records the group id here.
    const pidFile = path.join(os.tmpdir(), `cairn-codex-${randomUUID()}.pgid`);
    const env: Record<string, string> = { ...baseSubprocessEnv(processEnv), ...auth.env };
    const codex = new Codex({
      ...(executable && { codexPathOverride: PROCESS_GROUP_LAUNCHER }),
      env: executable
        ? withNodeOnPath({ ...env, CAIRN_GROUP_COMMAND: executable, CAIRN_GROUP_PID_FILE: pidFile })
        : env,
      ...(auth.mode === 'tokens' && { config: { cli_auth_credentials_store: 'file' } }),
    });
    const threadOptions = codexThreadOptions(settings, request.cwd);
    const thread = request.resumeSessionId
      ? codex.resumeThread(request.resumeSessionId, threadOptions)
      : codex.startThread(threadOptions);

    const abortController = new AbortController();
    const onAbort = () => {
      abortController.abort();
      void killRecordedGroup(pidFile);
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    const mapper = new CodexEventMapper();
    let finished = false;
    try {
      const { events } = await thread.runStreamed(request.prompt, { signal: abortController.signal });
      for await (const event of events) {
        for (const chunk of mapper.map(event)) {
          if (chunk.kind === 'done') finished = true;
          yield chunk;
        }
      }
      if (!finished) {
        finished = true;
        yield {
          kind: 'done',
          isError: true,
          errorMessage: mapper.lastError ?? 'Codex ended without completing the turn.',
        };
      }
    } catch (error) {
      if (request.signal.aborted) throw cancelled();
      // codex exits non-zero after turn.failed, which the done chunk already reported.
      if (finished) return logger.debug({ event: 'assistant.exit_after_result', assistant: 'codex' });
      const detail = redactSecrets((error as Error).message.trim(), auth.secrets);
      throw new AssistantError('process_failed', `Codex failed: ${detail.slice(-2_000)}`);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      // Also after a normal end: whatever the turn left running in the background goes with it.
      await killRecordedGroup(pidFile);
      await rm(pidFile, { force: true });
    }
  }
}
