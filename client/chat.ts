import { createInterface } from 'node:readline';
import { ApiRefusal, type ApiClient } from './api-client.js';
import type { CommandReply, MessageAccepted } from './api-types.js';
import { openStream } from './event-stream.js';
import { EXIT } from './exit-codes.js';
import type { Terminal } from './terminal.js';

const TURN_ENDS: Record<string, number> = {
  turn_completed: EXIT.ok,
  turn_failed: EXIT.runFailed,
  turn_cancelled: EXIT.runStopped,
};

const conversationPath = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

/**
 * Sends one message and prints the answer as it streams; answers the exit code of the turn.
 * `cancel` (Ctrl-C in the interactive chat) asks the server to cancel the turn.
 */
export async function sendMessage(
  api: ApiClient,
  term: Terminal,
  conversationId: string,
  message: string,
  options: { json: boolean; cancel?: AbortSignal },
): Promise<number> {
  const { first, stream, close } = await openStream(api, conversationId);
  let atLineStart = true;
  const line = (text: string) => {
    if (!atLineStart) term.write('\n');
    term.out(text);
    atLineStart = true;
  };
  try {
    const accepted = await api.post<MessageAccepted>(`${conversationPath(conversationId)}/message`, {
      message,
    });
    if (accepted.status === 'queued' && !options.json)
      term.err(term.dim(`(queued: number ${accepted.position} in line)`));
    let ended = false;
    /** The last try waited out a usage limit: the next one is that wait ending, not a crash. */
    let waited = false;
    // A turn that has not started yet cannot be cancelled (409 no_turn_running): ask again until
    // it starts, or ends by itself.
    const onCancel = async () => {
      for (let tries = 0; tries < 50 && !ended; tries += 1) {
        try {
          await api.post(`${conversationPath(conversationId)}/cancel`);
          return;
        } catch (error) {
          if (!(error instanceof ApiRefusal && error.problem.code === 'no_turn_running')) return;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    const cancelNow = () => void onCancel();
    options.cancel?.addEventListener('abort', cancelNow, { once: true });
    if (options.cancel?.aborted) cancelNow();
    try {
      for (let step = await first; !step.done; step = await stream.next()) {
        const { data } = step.value;
        if (data.messageId !== accepted.message_id) continue;
        if (options.json) term.out(JSON.stringify({ id: step.value.id, ...data }));
        else if (data.type === 'text') {
          term.write(String(data.text ?? ''));
          atLineStart = String(data.text ?? '').endsWith('\n');
        } else if (data.type === 'tool_call') line(term.dim(`⚙ ${String(data.name ?? 'tool')}`));
        else if (data.type === 'error') line(term.red(`error: ${String(data.message ?? '')}`));
        else if (data.type === 'turn_started' && data.restarted === true)
          line(
            term.yellow(
              waited
                ? '(the usage limit has reset: the answer starts)'
                : '(the assistant restarted after a crash: its answer starts again)',
            ),
          );
        else if (data.type === 'turn_cancelled') line(term.yellow('(cancelled)'));
        else if (data.type === 'turn_waiting') {
          waited = true;
          line(
            term.yellow(
              `(the assistant's usage limit is reached: the answer goes on by itself at ${String(data.until)}; Ctrl-C cancels it)`,
            ),
          );
        }
        if (data.type in TURN_ENDS) {
          ended = true;
          if (!atLineStart && !options.json) term.write('\n');
          return TURN_ENDS[data.type]!;
        }
      }
      return EXIT.serverError;
    } finally {
      ended = true;
      options.cancel?.removeEventListener('abort', cancelNow);
    }
  } finally {
    await close();
  }
}

/** Runs a `/command` in the conversation; answers the conversation to continue in. */
export async function runChatCommand(
  api: ApiClient,
  term: Terminal,
  conversationId: string,
  text: string,
  json: boolean,
): Promise<{ reply: CommandReply; conversationId: string }> {
  const reply = await api.post<CommandReply>(`${conversationPath(conversationId)}/command`, { text });
  if (json) term.out(JSON.stringify(reply));
  else term.out(reply.ok ? reply.text : term.yellow(reply.text));
  return { reply, conversationId: reply.conversation?.platformConversationId ?? conversationId };
}

/**
 * The interactive chat: a prompt with history; `/commands` run as commands; Ctrl-C cancels the
 * running turn (at the prompt, it clears the line); Ctrl-D leaves.
 */
export async function interactiveChat(
  api: ApiClient,
  term: Terminal,
  conversationId: string,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let current = conversationId;
  const prompt = createInterface({ input, output, terminal: term.isTty, historySize: 500 });
  term.out(
    term.dim(
      `conversation ${current}: /help lists the commands; a line ending in \\ goes on; Ctrl-C cancels a turn; Ctrl-D leaves`,
    ),
  );
  let turn: AbortController | undefined;
  prompt.on('SIGINT', () => {
    if (turn) {
      turn.abort();
      return;
    }
    prompt.write('', { ctrl: true, name: 'u' });
    prompt.prompt();
  });
  prompt.setPrompt(term.bold('you> '));
  prompt.prompt();
  try {
    let lines: string[] = [];
    for await (const raw of prompt) {
      // A line that ends with a backslash goes on on the next one: a message of several lines.
      if (raw.endsWith('\\')) {
        lines.push(raw.slice(0, -1));
        prompt.setPrompt(term.dim('...> '));
        prompt.prompt();
        continue;
      }
      const text = [...lines, raw].join('\n').trim();
      lines = [];
      prompt.setPrompt(term.bold('you> '));
      if (text !== '') {
        try {
          if (text.startsWith('/')) {
            const moved = await runChatCommand(api, term, current, text, false).catch((error: unknown) => {
              // Text like `/usr/bin is full` is a message after all.
              if (error instanceof ApiRefusal && error.problem.code === 'not_a_command') return undefined;
              throw error;
            });
            if (moved) {
              if (moved.conversationId !== current)
                term.out(term.dim(`now in conversation ${moved.conversationId}`));
              current = moved.conversationId;
            } else await converse(text);
          } else await converse(text);
        } catch (error) {
          if (!(error instanceof ApiRefusal)) throw error;
          term.err(term.red(error.message));
        }
      }
      prompt.prompt();
    }
  } finally {
    prompt.close();
  }
  return EXIT.ok;

  async function converse(text: string): Promise<void> {
    turn = new AbortController();
    try {
      await sendMessage(api, term, current, text, { json: false, cancel: turn.signal });
    } finally {
      turn = undefined;
    }
  }
}
