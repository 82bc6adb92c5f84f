import { text } from 'node:stream/consumers';
import { ApiRefusal } from '../api-client.js';
import { interactiveChat, runChatCommand, sendMessage } from '../chat.js';
import { ClientExit, EXIT } from '../exit-codes.js';
import { conversationFor, type ClientSession } from '../session.js';

/**
 * `cairn chat [message]`: one message answered on stdout; with no message, the interactive chat
 * on a terminal, or the message read from stdin when it is a pipe.
 */
export async function chat(
  session: ClientSession,
  words: string[],
  options: { codebase?: string; conversation?: string },
): Promise<number> {
  let message = words.join(' ').trim();
  if (message === '' && !process.stdin.isTTY) {
    message = (await text(process.stdin)).trim();
    if (message === '') throw new ClientExit('no message: pass one, or pipe it to stdin', EXIT.usage);
  }
  const conversationId = await conversationFor(session, options);
  if (message === '') return interactiveChat(session.api, session.term, conversationId);
  if (!session.json) session.term.err(session.term.dim(`conversation ${conversationId}`));
  if (message.startsWith('/')) {
    try {
      const { reply } = await runChatCommand(
        session.api,
        session.term,
        conversationId,
        message,
        session.json,
      );
      return reply.ok ? EXIT.ok : EXIT.refused;
    } catch (error) {
      // `/usr/bin is full` is a message after all.
      if (!(error instanceof ApiRefusal && error.problem.code === 'not_a_command')) throw error;
    }
  }
  return sendMessage(session.api, session.term, conversationId, message, { json: session.json });
}
