import { Api, GrammyError } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { ChatAddress } from '../../../domain/chat/chat-address.js';
import {
  ChatDeliveryRefused,
  type ChatButton,
  type ChatMessageOptions,
  type ChatMessenger,
} from '../../../domain/chat/chat-messenger.js';
import { splitMessage } from '../../../domain/chat/split-message.js';
import { markdownToTelegramHtml } from '../../../domain/chat/telegram-html.js';
import { waitOutRateLimits } from '../rate-limit-waits.js';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';

/** Telegram counts 4,096 characters of visible text; the markdown is split a little below. */
const MARKDOWN_PART_CHARS = 4_000;

/** About one edit per second per chat is what Telegram tolerates; stay a little under. */
export const TELEGRAM_EDIT_INTERVAL_MS = 1_100;

export interface TelegramConnection {
  token: string;
  /** TELEGRAM_API_ROOT: a self-hosted Bot API server, or a test's fake. */
  apiRoot?: string;
}

export function telegramApi(connection: TelegramConnection): Api {
  return new Api(connection.token, { apiRoot: connection.apiRoot ?? TELEGRAM_API_ROOT });
}

/** The Bot API's chat ids are integers; a username (`@channel`) stays text. */
function chatIdOf(address: ChatAddress): number | string {
  return /^-?\d+$/.test(address.chatId) ? Number(address.chatId) : address.chatId;
}

function keyboard(buttons: ChatButton[][] | undefined): InlineKeyboardMarkup | undefined {
  if (!buttons) return undefined;
  return { inline_keyboard: buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.data }))) };
}

/** Sends with parse_mode HTML; text the API cannot parse (a converter miss) goes again as plain text. */
async function withHtmlFallback<T>(
  send: (text: string, html: boolean) => Promise<T>,
  markdown: string,
): Promise<T> {
  try {
    return await send(markdownToTelegramHtml(markdown), true);
  } catch (error) {
    if (!(error instanceof GrammyError && /can't parse entities/i.test(error.description))) throw error;
    return send(markdown, false);
  }
}

/** Telegram's answers that a retry cannot change become ChatDeliveryRefused (not retried). */
function classify(error: unknown): never {
  if (error instanceof GrammyError && (error.error_code === 400 || error.error_code === 403)) {
    throw new ChatDeliveryRefused(`Telegram refused ${error.method}: ${error.description}`, 'telegram');
  }
  throw error;
}

export function createTelegramMessenger(
  connection: TelegramConnection,
  options: { editIntervalMs?: number } = {},
): ChatMessenger {
  const api = telegramApi(connection);
  return {
    platform: 'telegram',
    editIntervalMs: options.editIntervalMs ?? TELEGRAM_EDIT_INTERVAL_MS,
    split: (markdown) => splitMessage(markdown, MARKDOWN_PART_CHARS),

    async send(address: ChatAddress, markdown: string, message: ChatMessageOptions = {}): Promise<string> {
      const sent = await waitOutRateLimits(() =>
        withHtmlFallback(
          (text, html) =>
            api.sendMessage(chatIdOf(address), text, {
              ...(html ? { parse_mode: 'HTML' as const } : {}),
              ...(address.threadId ? { message_thread_id: Number(address.threadId) } : {}),
              ...(message.replyTo
                ? {
                    reply_parameters: {
                      message_id: Number(message.replyTo),
                      allow_sending_without_reply: true,
                    },
                  }
                : {}),
              reply_markup: keyboard(message.buttons),
              link_preview_options: { is_disabled: true },
            }),
          markdown,
        ),
      ).catch(classify);
      return String(sent.message_id);
    },

    async edit(address: ChatAddress, messageId: string, markdown: string, message: ChatMessageOptions = {}) {
      try {
        await waitOutRateLimits(() =>
          withHtmlFallback(
            (text, html) =>
              api.editMessageText(chatIdOf(address), Number(messageId), text, {
                ...(html ? { parse_mode: 'HTML' as const } : {}),
                reply_markup: keyboard(message.buttons),
                link_preview_options: { is_disabled: true },
              }),
            markdown,
          ),
        );
      } catch (error) {
        // The same text again (a retried delivery): already shown.
        if (error instanceof GrammyError && /message is not modified/i.test(error.description)) return;
        classify(error);
      }
    },
  };
}
