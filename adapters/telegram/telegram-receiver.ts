import { GrammyError, type Api } from 'grammy';
import type { CallbackQuery, Update } from 'grammy/types';
import { markdownToTelegramHtml } from '../../domain/chat/telegram-html.js';
import { receiveButtonPress } from '../../services/chat/chat-buttons.js';
import type { Logger } from '../../config/logger.js';
import { reconnectDelayMs } from '../../domain/chat/adapter-state.js';
import { messageOf, pauseUnlessStopped } from '../adapter-status.js';
import { ChatReceiver } from '../chat-receiver.js';
import { COMMANDS } from '../../domain/commands/command-grammar.js';
import { telegramApi, type TelegramConnection } from '../../infra/chat/telegram/telegram-messenger.js';
import {
  receiveChatMessage,
  type ChatDoorServices,
  type ChatReceiverSettings,
} from '../../services/chat/chat-inbound.js';
import { inboundFromUpdate, telegramAddress, type TelegramBotIdentity } from './telegram-updates.js';

export interface TelegramReceiverOptions {
  connection: TelegramConnection;
  door: ChatDoorServices;
  settings: Omit<ChatReceiverSettings, 'source'>;
  logger: Logger;
  /** Long-poll length; Telegram holds getUpdates open up to this long when nothing is new. */
  pollTimeoutSeconds?: number;
}

/** grammy types its signals with the abort-controller shim; Node's own AbortSignal is what it uses. */
type GrammySignal = Parameters<Api['getMe']>[0];

const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/**
 * Telegram by long polling. An update is confirmed (the next getUpdates' offset moves past it)
 * only once it was handled, so an update whose handling failed, or that arrived while the
 * process died, is delivered again; its record makes the second delivery do nothing twice.
 */
export class TelegramReceiver extends ChatReceiver {
  private readonly api: Api;
  private readonly signal = this.stopping.signal as unknown as GrammySignal;

  constructor(private readonly options: TelegramReceiverOptions) {
    super();
    this.api = telegramApi(options.connection);
  }

  protected async run(): Promise<void> {
    let failures = 0;
    let bot: TelegramBotIdentity | undefined;
    let offset: number | undefined;
    const attempts = new UpdateAttempts();
    while (!this.stopping.signal.aborted) {
      try {
        bot ??= await this.connect();
        const updates = await this.api.getUpdates(
          { offset, timeout: this.options.pollTimeoutSeconds ?? 30, allowed_updates: [...ALLOWED_UPDATES] },
          this.signal,
        );
        failures = 0;
        this.status.set('ready', `@${bot.username}`);
        for (const update of updates) {
          if (attempts.next(update.update_id) <= ATTEMPTS_PER_UPDATE) await this.handle(update, bot);
          else this.options.logger.error({ event: 'telegram.update_dropped', updateId: update.update_id });
          offset = update.update_id + 1;
        }
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        // An update that fails waits longer each time it fails, like a platform that fails.
        failures = Math.max(failures + 1, attempts.current);
        const reason = describeFailure(error);
        this.status.set('failing', reason);
        this.options.logger.warn({ event: 'telegram.receive_failed', err: reason, failures });
        // A refused token is checked again on the next round, so fixing it needs no restart.
        if (error instanceof GrammyError && error.error_code === 401) bot = undefined;
        await this.pause(reconnectDelayMs(failures));
      }
    }
  }

  /** Who the bot is, no webhook in the way of polling, and the command menu. */
  private async connect(): Promise<TelegramBotIdentity> {
    this.status.set('connecting');
    const me = await this.api.getMe(this.signal);
    await this.api.deleteWebhook({ drop_pending_updates: false }, this.signal);
    await this.api
      .setMyCommands(
        COMMANDS.map((command) => ({
          command: command.name.split(' ')[0]!,
          description: command.summary,
        })).filter(
          (command, index, all) => all.findIndex((other) => other.command === command.command) === index,
        ),
        {},
        this.signal,
      )
      .catch((error: unknown) =>
        this.options.logger.warn({ event: 'telegram.commands_not_set', err: describeFailure(error) }),
      );
    this.options.logger.info({ event: 'telegram.connected', bot: me.username });
    return { id: me.id, username: me.username };
  }

  /** Handles one update; a failure propagates so the update stays unconfirmed and comes again. */
  private async handle(update: Update, bot: TelegramBotIdentity): Promise<void> {
    if (update.callback_query) {
      await this.pressed(update.callback_query, bot);
      return;
    }
    const inbound = inboundFromUpdate(update, bot);
    if (!inbound) return;
    const outcome = await receiveChatMessage(this.options.door, this.settingsFor(bot), inbound);
    this.options.logger.debug({ event: 'telegram.update', updateId: update.update_id, outcome });
  }

  /** Approve and Reject under a gate: answered at once; a decided gate loses its buttons. */
  private async pressed(query: CallbackQuery, bot: TelegramBotIdentity): Promise<void> {
    const message = query.message;
    const answer =
      message && query.data
        ? await receiveButtonPress(this.options.door, this.settingsFor(bot), {
            address: telegramAddress(message),
            user: { id: String(query.from.id), name: query.from.username ?? query.from.first_name },
            data: query.data,
          })
        : undefined;
    // Telegram stops answering a query after a while: a late answer is not worth holding the chat up.
    await this.quietly('answerCallbackQuery', () =>
      this.api.answerCallbackQuery(query.id, answer ? { text: answer.notice } : {}, this.signal),
    );
    if (!message || !answer) return;
    if (answer.closeButtons) {
      // The run's follower shows the decision; taking the buttons off now stops a second press.
      await this.quietly('editMessageReplyMarkup', () =>
        this.api.editMessageReplyMarkup(
          message.chat.id,
          message.message_id,
          { reply_markup: { inline_keyboard: [] } },
          this.signal,
        ),
      );
    }
    if (answer.askReason) {
      const thread = telegramAddress(message).threadId;
      await this.api.sendMessage(
        message.chat.id,
        markdownToTelegramHtml(answer.askReason),
        {
          parse_mode: 'HTML',
          ...(thread ? { message_thread_id: Number(thread) } : {}),
          reply_markup: { force_reply: true, selective: true },
        },
        this.signal,
      );
    }
  }

  /** A call whose failure only costs a nicety: logged, never retried. */
  private async quietly(method: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.options.logger.info({ event: 'telegram.call_skipped', method, err: describeFailure(error) });
    }
  }

  private settingsFor(bot: TelegramBotIdentity): ChatReceiverSettings {
    return { ...this.options.settings, source: `telegram:${bot.id}` };
  }

  private pause(ms: number): Promise<void> {
    return pauseUnlessStopped(ms, this.stopping.signal);
  }
}

/**
 * Attempts at one update before it is dropped, so one that always fails cannot stop the chat:
 * with the backoff, about 5 minutes of a database or Temporal being away.
 */
const ATTEMPTS_PER_UPDATE = 10;

/** Counts the attempts at the update tried last. */
class UpdateAttempts {
  private updateId: number | undefined;
  current = 0;

  next(updateId: number): number {
    if (updateId !== this.updateId) {
      this.updateId = updateId;
      this.current = 0;
    }
    return ++this.current;
  }
}

/** What went wrong, for logs and /api/health: grammy keeps the token out of its messages. */
function describeFailure(error: unknown): string {
  if (error instanceof GrammyError) {
    if (error.error_code === 401)
      return 'Telegram refused the bot token (401 Unauthorized): check TELEGRAM_BOT_TOKEN';
    return `Telegram answered ${error.error_code}: ${error.description}`;
  }
  return `Telegram cannot be reached or the update failed: ${messageOf(error)}`;
}
