import { boundConversationId } from '../../db/repositories/chat-bindings.js';
import { listRunEvents } from '../../db/repositories/run-events.js';
import { findRun } from '../../db/repositories/workflow-runs.js';
import { chatActor, chatKey, type ChatAddress, type ChatUser } from '../../domain/chat/chat-address.js';
import {
  applyRunEvent,
  emptyRunView,
  parseGateButton,
  rejectReasonPrompt,
  waitingGateKey,
} from '../../domain/chat/run-view.js';
import { runCommand } from '../commands/run-command.js';
import type { ServiceContext } from '../context.js';
import type { ChatDoorServices, ChatReceiverSettings } from './chat-inbound.js';

/** A button pressed under one of the bot's messages. */
export interface InboundButtonPress {
  address: ChatAddress;
  user: ChatUser;
  data: string;
}

/** What the adapter does with a press: a short notice to the presser, and what becomes of the message. */
export interface ButtonAnswer {
  notice: string;
  /** The press decided the gate: take the buttons off so they cannot be pressed twice. */
  closeButtons: boolean;
  /** Reject asks for a reason: the adapter asks this question, and a reply to it rejects. */
  askReason?: string;
}

const NOT_WAITING = 'This gate is not waiting any more.';

/**
 * Approve and Reject under a gate message. They act like `/approve <run>` and `/reject <run>`
 * typed in the chat: only for allowed users, only on runs of this chat's conversation, and only
 * for the ask of the gate the message shows (an old message's button cannot decide a newer ask).
 * A second press finds the gate decided and is told so; the run's state machine decides once.
 */
export async function receiveButtonPress(
  door: ChatDoorServices,
  settings: ChatReceiverSettings,
  press: InboundButtonPress,
): Promise<ButtonAnswer> {
  const button = parseGateButton(press.data);
  if (!button) return { notice: 'This button does nothing any more.', closeButtons: false };
  const list = settings.allowedUserIds;
  if (list && list.length > 0 && !list.includes(press.user.id)) {
    return { notice: 'You are not allowed to use this bot.', closeButtons: false };
  }
  const context = door.commands.context;
  const conversationId = await boundConversationId(
    context.db.knex,
    press.address.platform,
    chatKey(press.address),
  );
  if (!conversationId) return { notice: 'No run of this chat is waiting.', closeButtons: false };
  if ((await waitingAsk(context, button.runId)) !== button.gateKey) {
    return { notice: NOT_WAITING, closeButtons: true };
  }
  if (button.decision === 'reject') {
    return {
      notice: 'Send the reason as a reply.',
      closeButtons: false,
      askReason: rejectReasonPrompt(button.runId),
    };
  }
  const reply = await runCommand(
    door.commands,
    { conversationId, actor: chatActor(press.address.platform, press.user) },
    `/approve ${button.runId}`,
  );
  return { notice: plain(reply?.text ?? NOT_WAITING), closeButtons: reply?.ok === true };
}

/** The key of the gate ask the run waits on now (see run-view.ts), if any. */
async function waitingAsk(context: ServiceContext, runId: string): Promise<string | undefined> {
  const run = await findRun(context.db.reader, runId);
  if (!run) return undefined;
  const events = await listRunEvents(context.db.reader, runId);
  return waitingGateKey(events.reduce(applyRunEvent, emptyRunView(run.id, run.workflowName)));
}

/** Button notices are plain text (Telegram shows at most 200 characters). */
function plain(markdown: string): string {
  const text = markdown.replace(/[`*_]/g, '');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
