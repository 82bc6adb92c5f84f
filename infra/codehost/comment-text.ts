import type { ChatMessageOptions } from '../../domain/chat/chat-messenger.js';

/**
 * A comment has no buttons: where a chat shows Approve and Reject, the comment says which
 * commands answer it (a reply comment by an allowed user).
 */
export function commentWithButtons(markdown: string, options?: ChatMessageOptions): string {
  const buttons = options?.buttons?.flat() ?? [];
  if (buttons.length === 0) return markdown;
  const approve = buttons.some((button) => button.data.startsWith('approve') || /approve/i.test(button.text));
  const reject = buttons.some((button) => button.data.startsWith('reject') || /reject/i.test(button.text));
  const commands = [approve && '`/approve [comment]`', reject && '`/reject <reason>`'].filter(Boolean);
  if (commands.length === 0) return markdown;
  return `${markdown}\n\n_Answer with ${commands.join(' or ')} in a comment._`;
}
