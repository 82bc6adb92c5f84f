import { Context } from '@temporalio/activity';
import type { CairnConfig, EffectiveConfig } from '../../config/config-types.js';
import { findCodebase } from '../../db/repositories/codebases.js';
import type { AssistantNodeInput, NodeOutcome } from '../../domain/runs/run-contract.js';
import { chooseAssistant } from '../../infra/assistants/choose-assistant.js';
import { createAssistantProvider } from '../../infra/assistants/create-provider.js';
import { AssistantError, type AssistantName } from '../../infra/assistants/types.js';
import { assertNoEnvLeak, EnvLeakBlockedError } from '../../services/codebases/check-before-spawn.js';
import type { ServiceContext } from '../../services/context.js';
import { NodeToolRecorder } from './node-tool-events.js';
import { DEFAULT_NODE_TIMEOUT_MS, formatDuration, rethrowCancellation } from './node-support.js';
import { checkAssistantOutput } from './output-format.js';
import { keepHeartbeating } from '../heartbeats.js';

/** What one assistant session answered. */
interface Answer {
  text: string;
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
  private readonly timer: NodeJS.Timeout;
  private readonly onCancel = () => this.controller.abort();

  constructor(
    private readonly cancellation: AbortSignal,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    cancellation.addEventListener('abort', this.onCancel, { once: true });
    if (cancellation.aborted) this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancellation.removeEventListener('abort', this.onCancel);
  }
}

/** Why no assistant may start in the node's folder, or undefined when one may. */
async function envLeakProblem(
  deps: ServiceContext,
  input: AssistantNodeInput,
  config: CairnConfig,
): Promise<string | undefined> {
  const codebase = input.codebaseId ? await findCodebase(deps.db.knex, input.codebaseId) : undefined;
  try {
    await assertNoEnvLeak({
      dir: input.cwd,
      consent: codebase?.allowEnvKeys ?? false,
      config,
      logger: deps.logger,
    });
    return undefined;
  } catch (error) {
    if (error instanceof EnvLeakBlockedError) return `env_leak_detected: ${error.detail}`;
    throw error;
  }
}

/**
 * Runs an assistant node: a fresh session of the node's assistant in the node's folder, its tool
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
  const ended = (fields: Pick<NodeOutcome, 'status' | 'output' | 'error'>, answer?: Answer): NodeOutcome => ({
    ...fields,
    tokens: answer?.tokens ?? 0,
    costUsd: answer?.costUsd ?? 0,
    durationMs: Date.now() - startedAt,
  });
  const failed = (error: string, answer?: Answer): NodeOutcome => {
    deps.logger.info({
      event: 'run.assistant_node_failed',
      runId: input.runId,
      nodeId: input.nodeId,
      reason: error.split(':')[0],
    });
    return ended({ status: 'failed', error }, answer);
  };

  const { home, environment, logger } = deps;
  const config = deps.config.forRepository(input.cwd);
  const leak = await envLeakProblem(deps, input, config);
  if (leak) return failed(leak);

  const assistant = chooseAssistant(config, input.provider);
  const provider = createAssistantProvider(assistant, {
    environment,
    config: withModel(config.effective, assistant, input.model),
    logger,
    home,
    processEnv: deps.env,
  });
  const timeoutMs = input.timeoutMs ?? DEFAULT_NODE_TIMEOUT_MS;
  const stop = new NodeStop(context.cancellationSignal, timeoutMs);
  const tools = new NodeToolRecorder(deps.db.knex, input);
  const stopHeartbeats = keepHeartbeating(context);
  const answer: Answer = { text: '', tokens: 0, costUsd: 0 };
  let failure: string | undefined;
  try {
    const chunks = provider.runTurn({
      prompt: input.prompt,
      cwd: input.cwd,
      signal: stop.controller.signal,
      repositoryEnv: config.effective.env,
    });
    for await (const chunk of chunks) {
      context.heartbeat();
      if (chunk.kind === 'text') answer.text += chunk.text;
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
    if (stop.timedOut) return failed(`timed out after ${formatDuration(timeoutMs)}`, answer);
    if (error instanceof AssistantError) return failed(`${error.code}: ${error.message}`, answer);
    throw error;
  } finally {
    stopHeartbeats();
    stop.dispose();
  }
  if (context.cancellationSignal.aborted) return rethrowCancellation(context);
  if (stop.timedOut) return failed(`timed out after ${formatDuration(timeoutMs)}`, answer);
  if (failure) return failed(failure, answer);
  if (!input.outputFormat) return ended({ status: 'succeeded', output: answer.text }, answer);
  const checked = checkAssistantOutput(input.outputFormat, answer.text);
  return checked.ok
    ? ended({ status: 'succeeded', output: checked.value }, answer)
    : failed(checked.error, answer);
}
