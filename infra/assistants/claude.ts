import type { ClaudeSettings } from '../../config/config-types.js';
import type { Environment } from '../../config/environment.js';
import type { Logger } from '../../config/logger.js';
import { claudeNodeOptions } from './claude-node-options.js';
import { resolveClaudeAuth } from './claude-auth.js';
import { logFirstEventTimeout } from './claude-diagnostics.js';
import { CLAUDE_AS_ROOT_FIX, CLAUDE_ROOT_REFUSAL } from './claude-root-guard.js';
import { ClaudeMessageMapper } from './claude-messages.js';
import {
  ClaudeProcessGroup,
  claudeExecutablePath,
  claudeQueryOptions,
  claudeSubprocessEnv,
} from './claude-options.js';
import { withFirstEventTimeout } from './first-event-timeout.js';
import { cancelled, checkLaunchable } from './launch-checks.js';
import type { NestedSessionWarner } from './nested-session-warning.js';
import { redactSecrets } from './redact.js';
import {
  AssistantError,
  type AssistantChunk,
  type AssistantProvider,
  type AssistantTurnRequest,
} from './types.js';

export interface ClaudeProviderDeps {
  environment: Environment;
  settings: ClaudeSettings;
  logger: Logger;
  /** The variables the subprocess starts from (sanitized first). */
  processEnv: NodeJS.ProcessEnv;
  warnNested: NestedSessionWarner;
}

/** Claude Code through the Agent SDK's query(), one subprocess per turn, resumed by session id. */
export class ClaudeProvider implements AssistantProvider {
  readonly name = 'claude' as const;

  constructor(private readonly deps: ClaudeProviderDeps) {}

  async *runTurn(request: AssistantTurnRequest): AsyncGenerator<AssistantChunk> {
    const { environment, settings, logger, processEnv } = this.deps;
    if (request.signal.aborted) throw cancelled();
    // Loaded at the first turn, not at start-up: the SDK takes about 100 ms to import.
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const auth = resolveClaudeAuth(environment.claude);
    this.deps.warnNested(processEnv, environment.general.suppressNestedClaudeWarning);
    const executablePath = claudeExecutablePath(environment, settings);
    checkLaunchable(executablePath, request.cwd, 'CLAUDE_BIN_PATH');
    const secrets = [...Object.values(auth.env), ...Object.values(request.repositoryEnv ?? {})];

    const group = new ClaudeProcessGroup();
    const abortController = new AbortController();
    const onAbort = () => {
      abortController.abort();
      void group.kill();
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = environment.claude.firstEventTimeoutMs;
    const onTimeout = async (): Promise<never> => {
      abortController.abort();
      await group.kill();
      logFirstEventTimeout(logger, { timeoutMs, executablePath, cwd: request.cwd, auth, pid: group.pid });
      throw new AssistantError(
        'first_event_timeout',
        `Claude sent no event within ${timeoutMs} ms and was stopped as hung.`,
      );
    };

    const env = claudeSubprocessEnv(processEnv, auth, request.repositoryEnv);
    const nodeOptions = request.options ? claudeNodeOptions(request.options, request.cwd, env) : {};
    const messages = query({
      prompt: request.prompt,
      options: {
        ...claudeQueryOptions({
          cwd: request.cwd,
          model: settings.model,
          resume: request.resumeSessionId,
          settingSources: settings.settingSources,
          executablePath,
          env,
          abortController,
          group,
        }),
        ...nodeOptions,
      },
    });
    const mapper = new ClaudeMessageMapper();
    let finished = false;
    try {
      for await (const message of withFirstEventTimeout(messages, timeoutMs, onTimeout)) {
        for (const chunk of mapper.map(message)) {
          if (chunk.kind === 'done') finished = true;
          yield chunk;
        }
      }
      if (!finished) {
        finished = true;
        yield { kind: 'done', isError: true, errorMessage: 'Claude ended without a result.' };
      }
    } catch (error) {
      if (error instanceof AssistantError) throw error;
      if (request.signal.aborted) throw cancelled();
      // The CLI exits non-zero after an error result, which the done chunk already reported.
      if (finished) return logger.debug({ event: 'assistant.exit_after_result', assistant: 'claude' });
      const stderr = group.stderr.value();
      if (CLAUDE_ROOT_REFUSAL.test(stderr)) {
        throw new AssistantError(
          'claude_refuses_root',
          `Claude Code refuses to run as root: ${CLAUDE_AS_ROOT_FIX}.`,
        );
      }
      const detail = `${(error as Error).message}${stderr ? `. stderr: ${stderr}` : ''}`;
      throw new AssistantError('process_failed', `Claude failed: ${redactSecrets(detail, secrets)}`);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      messages.close();
      // Also after a normal end: whatever the turn left running in the background goes with it.
      await group.kill();
    }
  }
}
