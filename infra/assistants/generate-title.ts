import os from 'node:os';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { resolveClaudeAuth } from './claude-auth.js';
import { ClaudeProcessGroup, claudeExecutablePath, claudeSubprocessEnv } from './claude-options.js';
import type { AssistantProviderDeps } from './create-provider.js';

export const TITLE_MAX_LENGTH = 60;
export const TITLE_TIMEOUT_MS = 20_000;
/** The fake claude in test/fixtures recognises title requests by this opening. */
export const TITLE_REQUEST_PREFIX = 'Reply with only a short title';

/** The message itself, cut at a word boundary with an ellipsis when longer than the limit. */
export function fallbackTitle(message: string, limit = TITLE_MAX_LENGTH): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat || 'New conversation';
  const cut = flat.slice(0, limit - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > limit / 2 ? cut.slice(0, lastSpace) : cut).replace(/[\s.,;:!?-]+$/, '')}…`;
}

/** First line, without quotes, a "Title:" label or a final period. */
function cleanTitle(raw: string): string {
  const line = raw.split('\n').find((candidate) => candidate.trim()) ?? '';
  return line
    .trim()
    .replace(/^title:\s*/i, '')
    .replace(/^["'`*]+|["'`*]+$/g, '')
    .replace(/\.$/, '')
    .trim();
}

function titlePrompt(message: string): string {
  return (
    `${TITLE_REQUEST_PREFIX} (at most 8 words, no quotes, no final period) for a conversation ` +
    `that starts with the message below. Do not answer the message.\n<message>\n${message}\n</message>`
  );
}

function resultText(message: SDKMessage): string | undefined {
  return message.type === 'result' && message.subtype === 'success' && !message.is_error
    ? message.result
    : undefined;
}

/**
 * A short title for a conversation from its first message: a one-shot Claude query with
 * TITLE_GENERATION_MODEL, no tools and no saved session. Any failure, a timeout or missing auth
 * gives the truncated message instead: a title is never worth failing a conversation for.
 */
export async function generateTitle(
  firstMessage: string,
  deps: AssistantProviderDeps & { timeoutMs?: number },
): Promise<string> {
  const { environment, logger } = deps;
  // Loaded at the first title, not at start-up: the SDK takes about 100 ms to import.
  const { query } = await import('@anthropic-ai/claude-agent-sdk');
  const group = new ClaudeProcessGroup();
  const abortController = new AbortController();
  const timer = setTimeout(() => {
    abortController.abort();
    void group.kill();
  }, deps.timeoutMs ?? TITLE_TIMEOUT_MS);
  try {
    const auth = resolveClaudeAuth(environment.claude);
    const executablePath = claudeExecutablePath(environment, deps.config.assistants.claude);
    const messages = query({
      prompt: titlePrompt(firstMessage),
      options: {
        cwd: os.tmpdir(),
        env: claudeSubprocessEnv(deps.processEnv ?? process.env, auth),
        abortController,
        spawnClaudeCodeProcess: group.spawn,
        maxTurns: 1,
        tools: [],
        settingSources: [],
        persistSession: false,
        ...(environment.claude.titleGenerationModel && { model: environment.claude.titleGenerationModel }),
        ...(executablePath && { pathToClaudeCodeExecutable: executablePath }),
      },
    });
    let title = '';
    for await (const message of messages) title = resultText(message) ?? title;
    const cleaned = cleanTitle(title);
    if (cleaned) return cleaned.length > TITLE_MAX_LENGTH * 2 ? fallbackTitle(cleaned) : cleaned;
    logger.info({ event: 'assistant.title_empty' }, 'Title generation gave no text; using the message');
  } catch (error) {
    const reason = abortController.signal.aborted
      ? 'timeout'
      : ((error as { code?: string }).code ?? 'failed');
    logger.info({ event: 'assistant.title_fallback', reason }, 'Title generation failed; using the message');
  } finally {
    clearTimeout(timer);
    await group.kill();
  }
  return fallbackTitle(firstMessage);
}
