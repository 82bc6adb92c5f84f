import {
  App,
  LogLevel,
  webApi,
  type BlockAction,
  type ButtonAction,
  type Logger as SlackLogger,
  type SlashCommand,
  type ViewSubmitAction,
} from '@slack/bolt';
import type { Logger } from '../../config/logger.js';
import { reconnectDelayMs } from '../../domain/chat/adapter-state.js';
import type { ChatAddress } from '../../domain/chat/chat-address.js';
import { parseGateButton } from '../../domain/chat/run-view.js';
import {
  SLACK_API_URL,
  SLACK_GATE_ACTION,
  type SlackConnection,
} from '../../infra/chat/slack/slack-messenger.js';
import { receiveButtonPress } from '../../services/chat/chat-buttons.js';
import {
  chatIsBound,
  receiveChatMessage,
  type ChatDoorServices,
  type ChatReceiverSettings,
} from '../../services/chat/chat-inbound.js';
import { messageOf, pauseUnlessStopped } from '../adapter-status.js';
import { ChatReceiver } from '../chat-receiver.js';
import { AckAfterHandlingReceiver } from './ack-after-handling-receiver.js';
import {
  inboundFromSlackEvent,
  slackTextToPlain,
  type SlackBotIdentity,
  type SlackMessageEvent,
} from './slack-events.js';

export interface SlackReceiverOptions {
  connection: SlackConnection & { appToken: string };
  door: ChatDoorServices;
  settings: Omit<ChatReceiverSettings, 'source'>;
  logger: Logger;
}

/** The slash command to configure in the Slack app: `/cairn status` is `/status`. */
export const SLACK_SLASH_COMMAND = '/cairn';

const REASON_VIEW = 'cairn_reject_reason';
const REASON_BLOCK = 'reason';
const REASON_INPUT = 'reason_input';

/**
 * Slack in Socket Mode (Bolt). The bot answers direct messages, mentions (each top-level mention
 * starts a thread that is one conversation) and replies in threads it already talks in. Slack
 * re-sends an envelope that was not acknowledged within 3 s, and sends a mention twice
 * (app_mention and message): both are recognised by the message's channel and ts.
 */
export class SlackReceiver extends ChatReceiver {
  private app: App | undefined;

  constructor(private readonly options: SlackReceiverOptions) {
    super();
  }

  protected override async release(): Promise<void> {
    await this.app?.stop().catch(() => undefined);
  }

  /** Checks the tokens and connects; a refusal or an outage is tried again with backoff. */
  protected async run(): Promise<void> {
    for (let failures = 0; !this.stopping.signal.aborted;) {
      try {
        this.status.set('connecting');
        const bot = await this.identify();
        const app = this.createApp(bot);
        this.app = app;
        await app.start();
        if (this.stopping.signal.aborted) return;
        this.status.set('ready', `<@${bot.userId}>`);
        this.options.logger.info({ event: 'slack.connected', bot: bot.userId });
        return; // the socket client reconnects by itself from here on
      } catch (error) {
        await this.app?.stop().catch(() => undefined);
        this.app = undefined;
        if (this.stopping.signal.aborted) return;
        failures++;
        const reason = describeFailure(error);
        this.status.set('failing', reason);
        this.options.logger.warn({ event: 'slack.connect_failed', err: reason, failures });
        await pauseUnlessStopped(reconnectDelayMs(failures), this.stopping.signal);
      }
    }
  }

  /** Who the bot is (auth.test): mentions name its user id. */
  private async identify(): Promise<SlackBotIdentity> {
    const client = new webApi.WebClient(this.options.connection.botToken, {
      slackApiUrl: this.apiUrl,
      logger: this.slackLogger(),
    });
    const identity = await client.auth.test();
    return { userId: String(identity.user_id), teamId: String(identity.team_id) };
  }

  private get apiUrl(): string {
    return this.options.connection.apiUrl ?? SLACK_API_URL;
  }

  private createApp(bot: SlackBotIdentity): App {
    const logger = this.slackLogger();
    const app = new App({
      token: this.options.connection.botToken,
      botUserId: bot.userId,
      receiver: new AckAfterHandlingReceiver({
        appToken: this.options.connection.appToken,
        slackApiUrl: this.apiUrl,
        logger,
        logLevel: LogLevel.WARN,
      }),
      logger,
      clientOptions: { slackApiUrl: this.apiUrl },
      // Each event is handled once: the conversation store's extra lookups are not needed.
      convoStore: false,
    });
    const settings: ChatReceiverSettings = {
      ...this.options.settings,
      source: `slack:${bot.teamId}:${bot.userId}`,
    };
    const onMessage = async ({ event }: { event: unknown }) =>
      this.received(event as SlackMessageEvent, bot, settings);
    app.event('message', onMessage);
    app.event('app_mention', onMessage);
    app.action<BlockAction<ButtonAction>>(
      { action_id: SLACK_GATE_ACTION },
      async ({ ack, body, action, client }) => {
        await ack();
        await this.pressed(body, action, client, settings);
      },
    );
    app.command(SLACK_SLASH_COMMAND, async ({ ack, command }) => {
      await ack();
      await this.slashCommand(command, settings);
    });
    app.view<ViewSubmitAction>(REASON_VIEW, async ({ ack, body, view }) => {
      await ack();
      await this.reasonGiven(body, view, settings);
    });
    app.error(async (error) => {
      this.options.logger.error({ event: 'slack.handling_failed', err: messageOf(error) });
      throw error;
    });
    return app;
  }

  private async received(event: SlackMessageEvent, bot: SlackBotIdentity, settings: ChatReceiverSettings) {
    const found = inboundFromSlackEvent(event, bot);
    if (!found) return;
    if (
      found.addressing === 'thread' &&
      !(await chatIsBound(this.options.door.commands.context, found.inbound.address))
    ) {
      return;
    }
    const outcome = await receiveChatMessage(this.options.door, settings, found.inbound);
    this.options.logger.debug({ event: 'slack.message', deliveryId: found.inbound.deliveryId, outcome });
  }

  /**
   * `/cairn <command>`: Slack's client keeps every message that starts with `/` for its own slash
   * commands, so this is how Cairn's commands are typed there. Slack sends no thread with a slash
   * command: it speaks to the channel's (or direct message's) own conversation.
   */
  private async slashCommand(command: SlashCommand, settings: ChatReceiverSettings): Promise<void> {
    const words = slackTextToPlain(command.text).trim();
    await receiveChatMessage(this.options.door, settings, {
      address: { platform: 'slack', chatId: command.channel_id },
      user: { id: command.user_id, name: command.user_name },
      text: `/${words === '' ? 'help' : words}`,
      deliveryId: `command:${command.trigger_id}`,
    });
  }

  /** Approve decides at once; Reject asks for the reason in a modal; the presser alone sees the notice. */
  private async pressed(
    body: BlockAction<ButtonAction>,
    action: ButtonAction,
    client: webApi.WebClient,
    settings: ChatReceiverSettings,
  ): Promise<void> {
    const button = parseGateButton(action.value ?? '');
    const channel = body.channel?.id;
    const message = body.message;
    if (!button || !channel || !message) return;
    const address: ChatAddress = {
      platform: 'slack',
      chatId: channel,
      ...(message.thread_ts ? { threadId: String(message.thread_ts) } : {}),
    };
    const answer = await receiveButtonPress(this.options.door, settings, {
      address,
      user: { id: body.user.id, name: body.user.name ?? body.user.id },
      data: action.value ?? '',
    });
    if (answer.askReason) {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: reasonView(button.runId, address, answer.askReason),
      });
      return;
    }
    if (answer.closeButtons) {
      // The run's follower shows the decision; taking the buttons off now stops a second press.
      const blocks = ((message.blocks ?? []) as Array<{ type: string }>).filter(
        (block) => block.type !== 'actions',
      );
      await this.quietly('chat.update', () =>
        client.chat.update({ channel, ts: String(message.ts), text: String(message.text ?? ''), blocks }),
      );
    }
    await this.quietly('chat.postEphemeral', () =>
      client.chat.postEphemeral({
        channel,
        user: body.user.id,
        text: answer.notice,
        ...(address.threadId ? { thread_ts: address.threadId } : {}),
      }),
    );
  }

  /** The modal's reason rejects the run, as `/reject <run> <reason>` typed in the thread would. */
  private async reasonGiven(
    body: ViewSubmitAction,
    view: ViewSubmitAction['view'],
    settings: ChatReceiverSettings,
  ): Promise<void> {
    const meta = parseReasonMeta(view.private_metadata);
    const reason = view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value ?? '';
    if (!meta || reason.trim() === '') return;
    await receiveChatMessage(this.options.door, settings, {
      address: meta.address,
      user: { id: body.user.id, name: body.user.name ?? body.user.id },
      text: `/reject ${meta.runId} ${reason}`,
      deliveryId: `view:${view.id}`,
    });
  }

  /** A call whose failure only costs a nicety: logged, never retried. */
  private async quietly(method: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.options.logger.info({ event: 'slack.call_skipped', method, err: describeFailure(error) });
    }
  }

  /** Bolt's and the socket client's logs go to ours, at debug (they chat a lot), warnings as warnings. */
  private slackLogger(): SlackLogger {
    const logger = this.options.logger;
    const text = (parts: unknown[]) =>
      parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' ');
    return {
      debug: (...parts) => logger.debug({ event: 'slack.sdk' }, text(parts)),
      info: (...parts) => logger.debug({ event: 'slack.sdk' }, text(parts)),
      warn: (...parts) => logger.warn({ event: 'slack.sdk' }, text(parts)),
      error: (...parts) => logger.error({ event: 'slack.sdk' }, text(parts)),
      setLevel: () => undefined,
      getLevel: () => LogLevel.DEBUG,
      setName: () => undefined,
    };
  }
}

interface ReasonMeta {
  runId: string;
  address: ChatAddress;
}

function reasonView(runId: string, address: ChatAddress, question: string) {
  const meta: ReasonMeta = { runId, address };
  return {
    type: 'modal' as const,
    callback_id: REASON_VIEW,
    private_metadata: JSON.stringify(meta),
    title: { type: 'plain_text' as const, text: 'Reject the run' },
    submit: { type: 'plain_text' as const, text: 'Reject' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      {
        type: 'input' as const,
        block_id: REASON_BLOCK,
        label: { type: 'plain_text' as const, text: question.slice(0, 2_000) },
        element: {
          type: 'plain_text_input' as const,
          action_id: REASON_INPUT,
          multiline: true,
          max_length: 1_000,
        },
      },
    ],
  };
}

/** The modal's metadata comes back from Slack as we wrote it; anything else is ignored. */
function parseReasonMeta(text: string): ReasonMeta | undefined {
  try {
    const meta = JSON.parse(text) as Partial<ReasonMeta>;
    if (typeof meta.runId !== 'string' || meta.address?.platform !== 'slack') return undefined;
    if (typeof meta.address.chatId !== 'string') return undefined;
    return { runId: meta.runId, address: meta.address };
  } catch {
    return undefined;
  }
}

/** What went wrong, for logs and /api/health, without a token. */
function describeFailure(error: unknown): string {
  const platform = error as Partial<webApi.WebAPIPlatformError>;
  const code = platform.data?.error;
  if (
    code === 'invalid_auth' ||
    code === 'not_authed' ||
    code === 'account_inactive' ||
    code === 'token_revoked'
  ) {
    return `Slack refused the bot or app token (${code}): check SLACK_BOT_TOKEN and SLACK_APP_TOKEN`;
  }
  if (code) return `Slack answered ${code}`;
  return `Slack cannot be reached: ${messageOf(error)}`;
}
