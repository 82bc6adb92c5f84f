import { ErrorCode, LogLevel, WebClient, type WebAPIPlatformError } from '@slack/web-api';
import type { ChatAddress } from '../../../domain/chat/chat-address.js';
import {
  ChatDeliveryRefused,
  type ChatButton,
  type ChatMessageOptions,
  type ChatMessenger,
} from '../../../domain/chat/chat-messenger.js';
import { PLATFORM_TEXT_LIMITS, splitRendered } from '../../../domain/chat/split-message.js';
import { markdownToSlackMrkdwn } from '../../../domain/chat/slack-mrkdwn.js';
import { tracedPlatformCall } from '../rate-limit-waits.js';

export const SLACK_API_URL = 'https://slack.com/api/';

/**
 * chat.update is a Tier 3 method (about 50 a minute per workspace): one message is edited at most
 * this often, and the Web API client waits out a 429's Retry-After when a busy workspace hits it.
 */
export const SLACK_EDIT_INTERVAL_MS = 1_500;

export interface SlackConnection {
  botToken: string;
  /** SLACK_API_URL: another Web API address (a proxy, a test's fake). */
  apiUrl?: string;
}

export function slackWebClient(connection: SlackConnection): WebClient {
  // The client waits out rate limits (Retry-After) and retries network errors by itself.
  // Its own console logging stays quiet: a failed delivery surfaces as the activity's error.
  return new WebClient(connection.botToken, {
    slackApiUrl: connection.apiUrl ?? SLACK_API_URL,
    logLevel: LogLevel.ERROR,
  });
}

/** The action ids of gate buttons; their `value` carries the gate (run-view.ts). */
export const SLACK_GATE_ACTION = /^cairn_gate_(approve|reject)$/;

/** A section with the text and, when there are buttons, an actions block under it (Block Kit). */
function blocksOf(text: string, buttons: ChatButton[][] | undefined): object[] | undefined {
  if (buttons === undefined) return undefined;
  const section = { type: 'section', text: { type: 'mrkdwn', text } };
  const elements = buttons.flat().map((button) => ({
    type: 'button',
    text: { type: 'plain_text', text: button.text, emoji: true },
    action_id: `cairn_gate_${button.data.split(':')[0]}`,
    value: button.data,
    ...(button.data.startsWith('approve') ? { style: 'primary' } : {}),
  }));
  return elements.length === 0 ? [section] : [section, { type: 'actions', elements }];
}

/** Slack's answers that a retry cannot change become ChatDeliveryRefused (not retried). */
const PERMANENT = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'msg_too_long',
  'no_text',
  'invalid_blocks',
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
  'restricted_action',
]);

function classify(error: unknown): never {
  const platform = error as WebAPIPlatformError;
  if (platform?.code === ErrorCode.PlatformError && PERMANENT.has(platform.data?.error)) {
    throw new ChatDeliveryRefused(`Slack refused: ${platform.data.error}`, 'slack');
  }
  throw error;
}

export function createSlackMessenger(
  connection: SlackConnection,
  options: { editIntervalMs?: number } = {},
): ChatMessenger {
  const client = slackWebClient(connection);
  return {
    platform: 'slack',
    editIntervalMs: options.editIntervalMs ?? SLACK_EDIT_INTERVAL_MS,
    split: (markdown) => splitRendered(markdown, PLATFORM_TEXT_LIMITS.slack, markdownToSlackMrkdwn),

    async send(address: ChatAddress, markdown: string, message: ChatMessageOptions = {}): Promise<string> {
      const text = markdownToSlackMrkdwn(markdown);
      const sent = await tracedPlatformCall('slack chat.postMessage', () =>
        client.chat.postMessage({
          channel: address.chatId,
          text,
          ...(address.threadId ? { thread_ts: address.threadId } : {}),
          ...(message.buttons ? { blocks: blocksOf(text, message.buttons) } : {}),
          unfurl_links: false,
          unfurl_media: false,
        } as Parameters<WebClient['chat']['postMessage']>[0]),
      ).catch(classify);
      return String(sent.ts);
    },

    async edit(address: ChatAddress, messageId: string, markdown: string, message: ChatMessageOptions = {}) {
      const text = markdownToSlackMrkdwn(markdown);
      await tracedPlatformCall('slack chat.update', () =>
        client.chat.update({
          channel: address.chatId,
          ts: messageId,
          text,
          // Blocks replace blocks: an empty button list leaves the section alone, without the actions.
          ...(message.buttons ? { blocks: blocksOf(text, message.buttons) } : {}),
        } as Parameters<WebClient['chat']['update']>[0]),
      ).catch(classify);
    },
  };
}
