import { inSampledTrace, markFailed, tracingHooks } from '../../config/tracing.js';
import type { AssistantChunk, AssistantProvider, AssistantTurnRequest } from './types.js';

/**
 * A provider whose turns are client spans (`assistant turn`) when tracing is on, children of the
 * activity that runs them, with the token counts and cost the turn reports. Off, the turn's
 * chunks pass straight through.
 */
export function tracedProvider(provider: AssistantProvider): AssistantProvider {
  return {
    name: provider.name,
    runTurn: (request) => tracedTurn(provider, request),
  };
}

async function* tracedTurn(
  provider: AssistantProvider,
  request: AssistantTurnRequest,
): AsyncGenerator<AssistantChunk> {
  const hooks = tracingHooks();
  // Outside any trace (no activity span) a turn would start a trace of its own, and inside an
  // unsampled one its span would record nothing: none then.
  if (!hooks || !inSampledTrace(hooks)) {
    yield* provider.runTurn(request);
    return;
  }
  const { api, tracer } = hooks;
  const span = tracer.startSpan('assistant turn', {
    kind: api.SpanKind.CLIENT,
    attributes: { 'cairn.assistant': provider.name, 'cairn.assistant.resumed': !!request.resumeSessionId },
  });
  try {
    for await (const chunk of provider.runTurn(request)) {
      if (chunk.kind === 'done') {
        if (chunk.usage) {
          span.setAttribute('gen_ai.usage.input_tokens', chunk.usage.inputTokens);
          span.setAttribute('gen_ai.usage.output_tokens', chunk.usage.outputTokens);
        }
        if (chunk.costUsd !== undefined) span.setAttribute('cairn.assistant.cost_usd', chunk.costUsd);
        if (chunk.isError) span.setStatus({ code: api.SpanStatusCode.ERROR, message: chunk.errorMessage });
      }
      yield chunk;
    }
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}
