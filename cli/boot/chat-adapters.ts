import type { Client } from '@temporalio/client';
import type { AdapterState } from '../../domain/chat/adapter-state.js';
import type { ChatReceiver } from '../../adapters/chat-receiver.js';
import { CHAT_PLATFORMS, type ChatPlatform } from '../../domain/chat/chat-address.js';
import type { Environment } from '../../config/environment.js';
import type { Logger } from '../../config/logger.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import type { ChatDoorServices, ChatReceiverSettings } from '../../services/chat/chat-inbound.js';
import { chatReplyStarter } from '../../services/chat/chat-reply-client.js';
import { turnCanceller, turnDispatcher } from '../../services/conversations/conversation-client.js';
import { runClient } from '../../services/runs/run-client.js';
import type { ServiceContext } from '../../services/context.js';
import type { CairnContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';

export interface RunningChatAdapters {
  /** Platforms whose adapter runs in this process. */
  platforms: ChatPlatform[];
  states(): Partial<Record<ChatPlatform, AdapterState>>;
}

/** The services a chat door acts through: those of the API, and the durable reply. */
export function chatDoorServices(
  context: ServiceContext,
  client: Client,
  options: { taskQueue?: string; searchAttributes: boolean; maxConcurrent: number },
): ChatDoorServices {
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const registration = { client, taskQueue, searchAttributes: options.searchAttributes };
  return {
    commands: { context, runs: runClient(registration), cancelTurn: turnCanceller(client), registration },
    turns: { dispatch: turnDispatcher({ client, taskQueue }), maxConcurrent: options.maxConcurrent },
    startReply: chatReplyStarter(client, taskQueue),
  };
}

interface ReceiverOptions {
  door: ChatDoorServices;
  logger: Logger;
  settings: Omit<ChatReceiverSettings, 'source'>;
}

/** The adapter of each platform whose token is set; its SDK is imported only then. */
async function receiverFor(
  platform: ChatPlatform,
  environment: Environment,
  options: ReceiverOptions,
): Promise<ChatReceiver | undefined> {
  const { telegram, discord, slack } = environment;
  if (platform === 'telegram' && telegram.botToken) {
    const { TelegramReceiver } = await import('../../adapters/telegram/telegram-receiver.js');
    return new TelegramReceiver({
      ...options,
      connection: { token: telegram.botToken, apiRoot: telegram.apiRoot },
    });
  }
  if (platform === 'discord' && discord.botToken) {
    const { DiscordReceiver } = await import('../../adapters/discord/discord-receiver.js');
    return new DiscordReceiver({
      ...options,
      connection: { token: discord.botToken, apiUrl: discord.apiUrl },
    });
  }
  if (platform === 'slack' && slack.botToken && slack.appToken) {
    const { SlackReceiver } = await import('../../adapters/slack/slack-receiver.js');
    return new SlackReceiver({
      ...options,
      connection: { botToken: slack.botToken, appToken: slack.appToken, apiUrl: slack.apiUrl },
    });
  }
  return undefined;
}

const ALLOW_LIST_VARIABLES: Record<ChatPlatform, string> = {
  telegram: 'TELEGRAM_ALLOWED_USER_IDS',
  discord: 'DISCORD_ALLOWED_USER_IDS',
  slack: 'SLACK_ALLOWED_USER_IDS',
};

/**
 * Starts the adapter of each chat platform whose token is set (Slack: with its app token), in the
 * process that serves the API. One process per bot token may receive: with several API
 * replicas, set the tokens on one of them (the workers need them too: they send the replies).
 */
export async function startChatAdapters(
  context: CairnContext,
  door: ChatDoorServices,
  lifecycle: Lifecycle,
): Promise<RunningChatAdapters> {
  const { environment, config, logger } = context;
  const running: Array<{ platform: ChatPlatform; receiver: ChatReceiver }> = [];
  for (const platform of CHAT_PLATFORMS) {
    const allowedUserIds = environment[platform].allowedUserIds;
    const receiver = await receiverFor(platform, environment, {
      door,
      logger: logger.child({ component: platform }),
      settings: {
        allowedUserIds,
        mode: config.effective.streaming[platform],
        botName: environment.general.botDisplayName,
      },
    });
    if (!receiver) continue;
    if (!allowedUserIds?.length) {
      logger.warn(
        { event: 'chat.open_access', platform },
        `${ALLOW_LIST_VARIABLES[platform]} is not set: anyone who finds the bot can use it`,
      );
    }
    receiver.start();
    lifecycle.add(`${platform} adapter`, () => receiver.stop());
    running.push({ platform, receiver });
  }
  return {
    platforms: running.map((entry) => entry.platform),
    states: () => Object.fromEntries(running.map((entry) => [entry.platform, entry.receiver.state])),
  };
}
