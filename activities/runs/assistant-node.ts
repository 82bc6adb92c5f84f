import { usageLimitReset } from '../../domain/assistants/usage-limit.js';
import { Context } from '@temporalio/activity';
import type { CairnConfig, EffectiveConfig } from '../../config/config-types.js';
import { findCodebase } from '../../db/repositories/codebases.js';
import type { AssistantNodeInput, NodeOutcome } from '../../domain/runs/run-contract.js';
import { chooseAssistant } from '../../infra/assistants/choose-assistant.js';
import { createAssistantProvider } from '../../infra/assistants/create-provider.js';
import { AssistantError, type AssistantName } from '../../infra/assistants/types.js';
import { assertNoEnvLeak, EnvLeakBlockedError } from '../../services/codebases/check-before-spawn.js';
import type { ServiceContext } from '../../services/context.js';
import { processEnvFor, withoutRepositorySecrets } from '../../services/codebases/untrusted-code.js';
import { NodeToolRecorder } from './node-tool-events.js';
import { DEFAULT_NODE_TIMEOUT_MS, formatDuration, rethrowCancellation } from './node-support.js';
import { checkAssistantOutput } from './output-format.js';
import { keepHeartbeating } from '../heartbeats.js';

/** What one assistant session answered. */
interface Answer {
  text: string;
  sessionId?: string;
  tokens: number;
  costUsd: number;
}

/** The node's model, when it names one, wins over the configured model of its assistant. */
export function withModel(
  config: EffectiveConfig,
  assistant: AssistantName,
  model?: string,
): EffectiveConfig {
  if (!model) return config;
  return {
    ...config,
    assistants: { ...config.assistants, [assistant]: { ...config.assistants[assistant], model } },
  };
}

/** Stopped by a timeout or a cancellation; says which. */
class NodeStop {
  readonly controller = new AbortController();
  timedOut = false;
  /** The assistant sent nothing for the node's idle_timeout. */
  idled = false;
  private readonly timer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly onCancel = () => this.controller.abort();

  constructor(
    private readonly cancellation: AbortSignal,
    timeoutMs: number,
    private readonly idleTimeoutMs?: number,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    this.touch();
    cancellation.addEventListener('abort', this.onCancel, { once: true });
    if (cancellation.aborted) this.controller.abort();
  }

  /** The assistant sent something: the idle clock starts again. */
  touch(): void {
    if (this.idleTimeoutMs === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idled = true;
      this.controller.abort();
    }, this.idleTimeoutMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.idleTimer);
    this.cancellation.removeEventListener('abort', this.onCancel);
  }
}

/** Why no assistant may start in the node's folder, or undefined when one may. */
async function envLeakProblem(
  deps: ServiceContext,
  input: AssistantNodeInput,
  config: CairnConfig,
  consent: boolean,
): Promise<string | undefined> {
  try {
    await assertNoEnvLeak({ dir: input.cwd, consent, config, logger: deps.logger });
    return undefined;
  } catch (error) {
    if (error instanceof EnvLeakBlockedError) return `env_leak_detected: ${error.detail}`;
    throw error;
  }
}

/**
 * Runs an assistant node: a fresh session of the node's assistant (or the one a loop continues) in the node's folder, its tool
 * calls recorded as run events as they happen. The output is the whole answer, or the JSON it
 * holds when the node has an output_format. A failure of the assistant is the node's failure;
 * only a failure of Cairn itself (the database) fails the activity, for Temporal to retry.
 */
export async function runAssistantNode(
  deps: ServiceContext,
  input: AssistantNodeInput,
): Promise<NodeOutcome> {
  const context = Context.current();
  const startedAt = Date.now();
  const ended = (
    fields: Pick<NodeOutcome, 'status' | 'output' | 'error' | 'usageLimitResetAt'>,
    answer?: Answer,
  ): NodeOutcome => ({
    ...fields,
    tokens: answer?.tokens ?? 0,
    costUsd: answer?.costUsd ?? 0,
    durationMs: Date.now() - startedAt,
    ...(answer?.sessionId !== undefined && { sessionId: answer.sessionId }),
  });
  const failed = (error: string, answer?: Answer): NodeOutcome => {
    // A usage limit with a reset time is not the node's failure: the run waits it out.
    const reset = usageLimitReset(error);
    deps.logger.info({
      event: reset ? 'run.assistant_usage_limit' : 'run.assistant_node_failed',
      runId: input.runId,
      nodeId: input.nodeId,
      reason: error.split(':')[0],
      ...(reset && { resetsAt: reset.toISOString() }),
    });
    return ended(
      { status: 'failed', error, ...(reset && { usageLimitResetAt: reset.toISOString() }) },
      answer,
    );
  };

  const { home, environment, logger } = deps;
  const codebase = input.codebaseId ? await findCodebase(deps.db.knex, input.codebaseId) : undefined;
  // The codebase's checkout (its base branch) decides, never the run's folder, which may hold a
  // pull request's head; a fork's code gets none of the repository's secrets.
  const repositoryConfig = deps.config.forRepository(codebase?.sourcePath ?? input.cwd);
  const config = input.untrusted ? withoutRepositorySecrets(repositoryConfig) : repositoryConfig;
  const consent = (codebase?.allowEnvKeys ?? false) && !input.untrusted;
  const leak = await envLeakProblem(deps, input, config, consent);
  if (leak) return failed(leak);

  const assistant = chooseAssistant(config, input.provider);
  const provider = createAssistantProvider(assistant, {
    environment,
    config: withModel(config.effective, assistant, input.model),
    logger,
    home,
    processEnv: processEnvFor(deps.env, input.untrusted),
  });
  const timeoutMs = input.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
  const idleTimeoutMs = input.options?.idleTimeoutMs;
  const stop = new NodeStop(context.cancellationSignal, timeoutMs, idleTimeoutMs);
  const stopped = () =>
    stop.idled
      ? `idle: the assistant sent nothing for ${formatDuration(idleTimeoutMs!)} (idle_timeout)`
      : `timed out after ${formatDuration(timeoutMs)}`;
  const tools = new NodeToolRecorder(deps.db.knex, input);
  const stopHeartbeats = keepHeartbeating(context);
  const answer: Answer = { text: '', tokens: 0, costUsd: 0 };
  let failure: string | undefined;
  try {
    const chunks = provider.runTurn({
      prompt: input.prompt,
      cwd: input.cwd,
      ...(input.resumeSessionId !== undefined && { resumeSessionId: input.resumeSessionId }),
      signal: stop.controller.signal,
      repositoryEnv: config.effective.env,
      ...(input.options && { options: input.options }),
    });
    for await (const chunk of chunks) {
      context.heartbeat();
      stop.touch();
      if (chunk.kind === 'text') answer.text += chunk.text;
      else if (chunk.kind === 'session') answer.sessionId = chunk.providerSessionId;
      else if (chunk.kind === 'tool_call' || chunk.kind === 'tool_result') await tools.record(chunk);
      else if (chunk.kind === 'done') {
        answer.tokens = (chunk.usage?.inputTokens ?? 0) + (chunk.usage?.outputTokens ?? 0);
        answer.costUsd = chunk.costUsd ?? 0;
        if (chunk.isError)
          failure = `assistant_error: ${chunk.errorMessage ?? 'the assistant reported an error'}`;
      }
    }
  } catch (error) {
    if (context.cancellationSignal.aborted) return rethrowCancellation(context);
    if (stop.timedOut || stop.idled) return failed(stopped(), answer);
    if (error instanceof AssistantError) return failed(`${error.code}: ${error.message}`, answer);
    throw error;
  } finally {
    stopHeartbeats();
    stop.dispose();
  }
  if (context.cancellationSignal.aborted) return rethrowCancellation(context);
  if (stop.timedOut || stop.idled) return failed(stopped(), answer);
  if (failure) return failed(failure, answer);
  if (!input.outputFormat) return ended({ status: 'succeeded', output: answer.text }, answer);
  const checked = checkAssistantOutput(input.outputFormat, answer.text);
  return checked.ok
    ? ended({ status: 'succeeded', output: checked.value }, answer)
    : failed(checked.error, answer);
}
