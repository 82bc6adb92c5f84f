import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes, type APIMessage } from 'discord-api-types/v10';
import type { ChatAddress } from '../../../domain/chat/chat-address.js';
import {
  ChatDeliveryRefused,
  type ChatButton,
  type ChatMessageOptions,
  type ChatMessenger,
} from '../../../domain/chat/chat-messenger.js';
import { PLATFORM_TEXT_LIMITS, splitMessage } from '../../../domain/chat/split-message.js';
import { tracedPlatformCall } from '../rate-limit-waits.js';

export const DISCORD_API_URL = 'https://discord.com/api';

/** Discord allows 5 edits of a channel's messages per 5 s; one message every 1.2 s stays under it. */
export const DISCORD_EDIT_INTERVAL_MS = 1_200;

export interface DiscordConnection {
  token: string;
  /** DISCORD_API_URL: another REST address (a proxy, a test's fake). */
  apiUrl?: string;
}

/** The REST client waits out 429s (retry_after) and its own rate-limit buckets by itself. */
export function discordRest(connection: DiscordConnection): REST {
  return new REST({ version: '10', api: connection.apiUrl ?? DISCORD_API_URL }).setToken(connection.token);
}

const BUTTON = 2;
const ACTION_ROW = 1;
const STYLE_SUCCESS = 3;
const STYLE_DANGER = 4;

function components(buttons: ChatButton[][] | undefined): object[] | undefined {
  if (buttons === undefined) return undefined;
  return buttons
    .filter((row) => row.length > 0)
    .map((row) => ({
      type: ACTION_ROW,
      components: row.map((button) => ({
        type: BUTTON,
        label: button.text,
        custom_id: button.data,
        style: button.data.startsWith('approve') ? STYLE_SUCCESS : STYLE_DANGER,
      })),
    }));
}

/** Unknown channel or message, no access, a refused body: a retry cannot change them. */
const PERMANENT_CODES = new Set([10003, 10008, 50001, 50006, 50013, 50035]);

function classify(error: unknown): never {
  if (error instanceof DiscordAPIError && PERMANENT_CODES.has(Number(error.code))) {
    throw new ChatDeliveryRefused(`Discord refused: ${error.message}`, 'discord');
  }
  throw error;
}

/** Discord renders markdown itself; mentions in an assistant's text must never ping anyone. */
const NO_PINGS = { parse: [] as string[] };

export function createDiscordMessenger(
  connection: DiscordConnection,
  options: { editIntervalMs?: number } = {},
): ChatMessenger {
  const rest = discordRest(connection);
  return {
    platform: 'discord',
    editIntervalMs: options.editIntervalMs ?? DISCORD_EDIT_INTERVAL_MS,
    split: (markdown) => splitMessage(markdown, PLATFORM_TEXT_LIMITS.discord),

    async send(address: ChatAddress, markdown: string, message: ChatMessageOptions = {}): Promise<string> {
      const body = {
        content: markdown,
        allowed_mentions: NO_PINGS,
        ...(message.buttons ? { components: components(message.buttons) } : {}),
        ...(message.replyTo
          ? { message_reference: { message_id: message.replyTo, fail_if_not_exists: false } }
          : {}),
      };
      const sent = (await tracedPlatformCall('discord create message', () =>
        rest.post(Routes.channelMessages(address.chatId), { body }),
      ).catch(classify)) as APIMessage;
      return sent.id;
    },

    async edit(address: ChatAddress, messageId: string, markdown: string, message: ChatMessageOptions = {}) {
      const body = {
        content: markdown,
        allowed_mentions: NO_PINGS,
        ...(message.buttons ? { components: components(message.buttons) } : {}),
      };
      await tracedPlatformCall('discord edit message', () =>
        rest.patch(Routes.channelMessage(address.chatId, messageId), { body }),
      ).catch(classify);
    },
  };
}
