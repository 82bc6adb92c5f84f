import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  Client,
  Events,
  GatewayIntentBits,
  MessageFlags,
  ModalBuilder,
  Options,
  Partials,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type ChatInputApplicationCommandData,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Logger } from '../../config/logger.js';
import { reconnectDelayMs } from '../../domain/chat/adapter-state.js';
import type { ChatAddress, InboundChatMessage } from '../../domain/chat/chat-address.js';
import { parseGateButton } from '../../domain/chat/run-view.js';
import type { DiscordConnection } from '../../infra/chat/discord/discord-messenger.js';
import { DISCORD_API_URL } from '../../infra/chat/discord/discord-messenger.js';
import { receiveButtonPress } from '../../services/chat/chat-buttons.js';
import {
  chatIsBound,
  receiveChatMessage,
  type ChatDoorServices,
  type ChatReceiverSettings,
} from '../../services/chat/chat-inbound.js';
import { messageOf, pauseUnlessStopped } from '../adapter-status.js';
import { ChatReceiver } from '../chat-receiver.js';

export interface DiscordReceiverOptions {
  connection: DiscordConnection;
  door: ChatDoorServices;
  settings: Omit<ChatReceiverSettings, 'source'>;
  logger: Logger;
}

const REASON_MODAL = 'cairn-reject:';

/** The slash command registered with Discord: `/cairn status` is `/status` typed in the channel. */
export const DISCORD_SLASH_COMMAND: ChatInputApplicationCommandData = {
  name: 'cairn',
  description:
    'Run a Cairn command: help, status, new, codebase, workflow list or run, approve, reject, cancel',
  options: [
    {
      type: ApplicationCommandOptionType.String as const,
      name: 'command',
      description: 'The command and its arguments, for example: workflow run review-pr',
      required: false,
    },
  ],
};
const HANDLING_ATTEMPTS = 5;
const REASON_FIELD = 'reason';

/**
 * Discord through its gateway (discord.js). The bot answers direct messages, messages that
 * mention it, and every message in a thread that already talks to a conversation. Message ids
 * are unique for good, so a message the gateway replays after a resume is recognised.
 */
export class DiscordReceiver extends ChatReceiver {
  private client: Client | undefined;

  constructor(private readonly options: DiscordReceiverOptions) {
    super();
  }

  protected override async interrupt(): Promise<void> {
    await this.client?.destroy();
  }

  /**
   * Logs in and stays connected: discord.js resumes or reconnects by itself after a drop, but gives
   * up on a close it cannot recover from (a reset token, intents not enabled for the bot). A failed
   * login or such a close starts over here with backoff; the token is read each time.
   */
  protected async run(): Promise<void> {
    for (let failures = 0; !this.stopping.signal.aborted;) {
      const client = this.createClient();
      this.client = client;
      const lost = gaveUp(client, this.stopping.signal);
      try {
        this.status.set('connecting');
        await client.login(this.options.connection.token);
        failures = 0;
        const code = await lost;
        if (code === undefined) return; // stopping
        throw new GatewayClosed(code);
      } catch (error) {
        await client.destroy();
        if (this.stopping.signal.aborted) return;
        failures++;
        const reason = describeFailure(error);
        this.status.set('failing', reason);
        this.options.logger.warn({ event: 'discord.connection_failed', err: reason, failures });
        await pauseUnlessStopped(reconnectDelayMs(failures), this.stopping.signal);
      }
    }
  }

  private createClient(): Client {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      // Direct-message channels are not cached before their first message.
      partials: [Partials.Channel],
      // No message history in memory: each message is handled from its own event. It also means a
      // message the gateway replays after a resume reaches the handler (discord.js drops the copy
      // of a message it caches), where its delivery record answers it once, cached or not.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
      rest: { api: this.options.connection.apiUrl ?? DISCORD_API_URL },
    });
    const ready = () => client.user && this.status.set('ready', `@${client.user.username}`);
    client.once(Events.ClientReady, ready);
    client.once(Events.ClientReady, () => void this.registerSlashCommand(client));
    // A new session after a drop that could not be resumed.
    client.on(Events.ShardReady, ready);
    client.on(Events.ShardReconnecting, () => this.status.set('connecting', 'reconnecting to the gateway'));
    client.on(Events.ShardResume, ready);
    client.on(Events.Error, (error) =>
      this.options.logger.warn({ event: 'discord.error', err: messageOf(error) }),
    );
    client.on(Events.MessageCreate, (message) => void this.guard('message', () => this.received(message)));
    client.on(
      Events.InteractionCreate,
      (interaction) => void this.guard('interaction', () => this.interacted(interaction), 1),
    );
    return client;
  }

  /**
   * The gateway has no redelivery to ask for: a handler that fails (the database or Temporal away)
   * is tried again here with backoff, about half a minute in all, before it is logged as lost. An
   * interaction is answered once or not at all (Discord refuses a second answer), so it gets one try.
   */
  private async guard(what: string, work: () => Promise<void>, attempts = HANDLING_ATTEMPTS): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await work();
        return;
      } catch (error) {
        if (attempt >= attempts || this.stopping.signal.aborted) {
          this.options.logger.error({ event: 'discord.handling_failed', what, err: messageOf(error) });
          return;
        }
        await pauseUnlessStopped(reconnectDelayMs(attempt), this.stopping.signal);
      }
    }
  }

  private settingsFor(client: Client<true>): ChatReceiverSettings {
    return { ...this.options.settings, source: `discord:${client.user.id}` };
  }

  private async received(message: Message): Promise<void> {
    const client = message.client;
    if (message.author.bot || !client.user) return;
    const inbound = await this.inboundOf(message);
    if (!inbound) return;
    await receiveChatMessage(this.options.door, this.settingsFor(client), inbound);
  }

  /** Direct messages, mentions, and messages in a thread bound to a conversation; the mention taken out. */
  private async inboundOf(message: Message): Promise<InboundChatMessage | undefined> {
    const bot = message.client.user!;
    const address: ChatAddress = { platform: 'discord', chatId: message.channelId };
    const direct = message.guildId === null;
    const mentioned = message.mentions.users.has(bot.id);
    const text = message.content.replace(new RegExp(`<@!?${bot.id}>`, 'g'), '').trim();
    if (text === '') return undefined;
    if (!direct && !mentioned) {
      const thread = message.channel.isThread();
      if (!thread || !(await chatIsBound(this.options.door.commands.context, address))) return undefined;
    }
    return {
      address,
      user: { id: message.author.id, name: message.author.username },
      text,
      deliveryId: message.id,
      messageId: message.id,
    };
  }

  /** Registers `/cairn` (global); without it the commands still work as `/word` messages. */
  private async registerSlashCommand(client: Client): Promise<void> {
    try {
      await client.application?.commands.set([DISCORD_SLASH_COMMAND]);
    } catch (error) {
      this.options.logger.warn({ event: 'discord.commands_not_set', err: describeFailure(error) });
    }
  }

  /**
   * `/cairn <command>`: acknowledged at once (Discord forgets an interaction unanswered after
   * 3 s, and only its user sees that line), then run as the command typed in the channel would
   * be; its answer comes as a message of the channel.
   */
  private async slashCommand(interaction: ChatInputCommandInteraction): Promise<void> {
    const words = (interaction.options.getString('command') ?? '').trim();
    const text = `/${words === '' ? 'help' : words}`;
    await interaction.reply({ content: `Running \`${text.slice(0, 100)}\`…`, flags: MessageFlags.Ephemeral });
    await receiveChatMessage(this.options.door, this.settingsFor(interaction.client), {
      address: { platform: 'discord', chatId: interaction.channelId },
      user: { id: interaction.user.id, name: interaction.user.username },
      text,
      deliveryId: `command:${interaction.id}`,
    });
  }

  private async interacted(interaction: Interaction): Promise<void> {
    if (interaction.isChatInputCommand() && interaction.commandName === DISCORD_SLASH_COMMAND.name) {
      await this.slashCommand(interaction);
    } else if (interaction.isButton()) await this.pressed(interaction);
    else if (interaction.isModalSubmit() && interaction.customId.startsWith(REASON_MODAL)) {
      await this.reasonGiven(interaction);
    }
  }

  /**
   * Discord forgets an interaction not answered within 3 s. Approve is acknowledged first (it waits
   * on the run), then decided; Reject's first answer must be the reason's modal, and deciding that
   * it may ask only reads the database.
   */
  private async pressed(interaction: ButtonInteraction): Promise<void> {
    const button = parseGateButton(interaction.customId);
    if (!button) return;
    const press = {
      address: { platform: 'discord' as const, chatId: interaction.channelId },
      user: { id: interaction.user.id, name: interaction.user.username },
      data: interaction.customId,
    };
    const settings = this.settingsFor(interaction.client);
    if (button.decision === 'approve') {
      await interaction.deferUpdate();
      const answer = await receiveButtonPress(this.options.door, settings, press);
      // The run's follower shows the decision; taking the buttons off now stops a second press.
      if (answer.closeButtons) await interaction.editReply({ components: [] });
      await interaction.followUp({ content: answer.notice, flags: MessageFlags.Ephemeral });
      return;
    }
    const answer = await receiveButtonPress(this.options.door, settings, press);
    if (answer.askReason) {
      const input = new TextInputBuilder()
        .setCustomId(REASON_FIELD)
        .setLabel('Reason')
        .setStyle(TextInputStyle.Paragraph)
        .setRequired(true)
        .setMaxLength(1_000);
      const modal = new ModalBuilder()
        .setCustomId(`${REASON_MODAL}${button.runId}`)
        .setTitle('Reject the run')
        .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input));
      await interaction.showModal(modal);
      return;
    }
    if (answer.closeButtons) {
      // The gate was decided elsewhere meanwhile: its buttons go.
      await interaction.update({ components: [] });
      await interaction.followUp({ content: answer.notice, flags: MessageFlags.Ephemeral });
      return;
    }
    await interaction.reply({ content: answer.notice, flags: MessageFlags.Ephemeral });
  }

  /** The modal's reason rejects the run, as `/reject <run> <reason>` typed in the channel would. */
  private async reasonGiven(interaction: ModalSubmitInteraction): Promise<void> {
    const runId = interaction.customId.slice(REASON_MODAL.length);
    const reason = interaction.fields.getTextInputValue(REASON_FIELD);
    await interaction.reply({ content: 'Rejecting…', flags: MessageFlags.Ephemeral });
    await receiveChatMessage(this.options.door, this.settingsFor(interaction.client), {
      address: { platform: 'discord', chatId: interaction.channelId! },
      user: { id: interaction.user.id, name: interaction.user.username },
      text: `/reject ${runId} ${reason}`,
      deliveryId: `modal:${interaction.id}`,
    });
  }
}

/** The gateway closed with a code after which discord.js does not reconnect. */
class GatewayClosed extends Error {
  constructor(readonly closeCode: number) {
    super(`the gateway closed the connection (${closeCode})`);
  }
}

/** The close code once discord.js gives the connection up; undefined when the receiver stops first. */
function gaveUp(client: Client, stopping: AbortSignal): Promise<number | undefined> {
  return new Promise((resolve) => {
    client.once(Events.ShardDisconnect, (event) => resolve(event.code));
    stopping.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}

const AUTHENTICATION_FAILED = 4004;
const DISALLOWED_INTENTS = 4014;

/** What went wrong, for logs and /api/health, without the token. */
function describeFailure(error: unknown): string {
  const message = messageOf(error);
  const code = error instanceof GatewayClosed ? error.closeCode : undefined;
  // REST refuses it (TokenInvalid), or the gateway closes with 4004 "Authentication failed".
  if (
    code === AUTHENTICATION_FAILED ||
    /token|authentication failed/i.test(message) ||
    (error as { code?: string }).code === 'TokenInvalid'
  ) {
    return 'Discord refused the bot token: check DISCORD_BOT_TOKEN';
  }
  if (code === DISALLOWED_INTENTS || /disallowed intent/i.test(message)) {
    return 'Discord refused the Message Content intent: enable it for the bot in the Developer Portal';
  }
  return `Discord cannot be reached: ${message}`;
}
