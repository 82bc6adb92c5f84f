import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatAddress, ReplyPlatform } from '../../domain/chat/chat-address.js';
import type { ChatMessenger } from '../../domain/chat/chat-messenger.js';
import type { ChatTextReply, ChatTurnReply } from '../../domain/chat/chat-reply.js';
import type { Environment } from '../../config/environment.js';
import type { ServiceContext } from '../../services/context.js';
import {
  deliverTurn,
  placeholderText,
  type ChatDeliveryDependencies,
  type TurnDeliveryInput,
} from '../../services/chat/turn-delivery.js';
import { ChatPosts } from '../../services/chat/chat-posts.js';
import { deliverRun, type RunDeliveryInput } from '../../services/chat/run-delivery.js';
import { temporalUrlFor } from '../../services/temporal-url.js';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import { keepHeartbeating } from '../heartbeats.js';
import { platformFailure } from '../platform-failure.js';

/** Builds a platform's messenger on first use: a platform SDK loads only when a chat needs it. */
export type MessengerSource = (platform: ReplyPlatform) => Promise<ChatMessenger>;

export function messengersFromEnvironment(environment: Environment): MessengerSource {
  const built = new Map<ReplyPlatform, Promise<ChatMessenger>>();
  return (platform) => {
    let messenger = built.get(platform);
    if (!messenger) {
      messenger = buildMessenger(environment, platform);
      built.set(platform, messenger);
    }
    return messenger;
  };
}

async function buildMessenger(environment: Environment, platform: ReplyPlatform): Promise<ChatMessenger> {
  // Code hosts answer in comments: their clients are messengers too (infra/codehost/).
  if (platform === 'github' || platform === 'gitlab') {
    const { codeHostClientFor } = await import('../../infra/codehost/code-host-clients.js');
    const client = await codeHostClientFor(environment, platform);
    if (client) return client;
  }
  const { telegram, discord, slack } = environment;
  if (platform === 'telegram' && telegram.botToken) {
    const { createTelegramMessenger } = await import('../../infra/chat/telegram/telegram-messenger.js');
    return createTelegramMessenger({ token: telegram.botToken, apiRoot: telegram.apiRoot });
  }
  if (platform === 'discord' && discord.botToken) {
    const { createDiscordMessenger } = await import('../../infra/chat/discord/discord-messenger.js');
    return createDiscordMessenger({ token: discord.botToken, apiUrl: discord.apiUrl });
  }
  if (platform === 'slack' && slack.botToken) {
    const { createSlackMessenger } = await import('../../infra/chat/slack/slack-messenger.js');
    return createSlackMessenger({ botToken: slack.botToken, apiUrl: slack.apiUrl });
  }
  // The token was removed while replies were owed: retrying cannot help.
  throw ApplicationFailure.nonRetryable(
    `No ${platform} bot token is set on this worker.`,
    'chat_not_configured',
  );
}

/** A refusal no retry can change fails the reply at once; anything else is retried by Temporal. */
async function delivering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw platformFailure(error, 'chat_refused');
  }
}

/** The reply's messages are recorded under its workflow's id: one reply, one set of posts. */
function replyIdOf(context: Context): string {
  return context.info.workflowExecution?.workflowId ?? `activity:${context.info.activityId}`;
}

/** How often a delivery reads the journal for new events. */
const DELIVERY_POLL_MS = 250;

export function createChatActivities(
  deps: ServiceContext,
  messengers = messengersFromEnvironment(deps.environment),
) {
  /** What a delivery needs: the platform, the reply's posts (by the reply workflow's id), heartbeats. */
  async function delivery<T>(
    address: ChatAddress,
    deliver: (delivery: ChatDeliveryDependencies) => Promise<T>,
  ): Promise<T> {
    const context = Context.current();
    const messenger = await messengers(address.platform);
    const posts = new ChatPosts(deps.db.knex, messenger, address, replyIdOf(context));
    const stop = keepHeartbeating(context);
    try {
      return await delivering(() =>
        deliver({
          knex: deps.db.knex,
          messenger,
          posts,
          signal: context.cancellationSignal,
          pollMs: DELIVERY_POLL_MS,
        }),
      );
    } finally {
      stop();
    }
  }

  return {
    /** A command's answer or a refusal, in as many messages as it needs. */
    async sendChatText(input: ChatTextReply): Promise<void> {
      await delivery(input.address, async ({ messenger, posts }) => {
        for (const [index, part] of messenger.split(input.markdown).entries()) {
          await posts.ensure(`part:${index}`, part, { replyTo: index === 0 ? input.replyTo : undefined });
        }
      });
    },

    /** The first message of a turn's answer, which the delivery then edits. */
    async postTurnPlaceholder(input: ChatTurnReply): Promise<string> {
      return delivery(input.address, async ({ posts }) => {
        const placeholder = await posts.ensure('placeholder', placeholderText(input), {
          replyTo: input.replyTo,
        });
        return placeholder.messageId;
      });
    },

    /** Shows a run started from the chat (progress, gates with buttons) until it ends. */
    async followRunInChat(input: RunDeliveryInput): Promise<void> {
      const temporalUrl = temporalUrlFor(deps, runWorkflowId(input.runId));
      await delivery(input.address, (dependencies) => deliverRun(dependencies, input, { temporalUrl }));
    },

    /** Follows the turn and shows it in the chat until it ends. */
    async deliverTurnReply(input: TurnDeliveryInput): Promise<void> {
      await delivery(input.address, (dependencies) => deliverTurn(dependencies, input));
    },
  };
}

export type ChatActivities = ReturnType<typeof createChatActivities>;
