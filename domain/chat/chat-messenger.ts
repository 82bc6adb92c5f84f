import type { ChatAddress, ReplyPlatform } from './chat-address.js';

/** A button under a message; `data` comes back when it is pressed (Telegram allows 64 bytes). */
export interface ChatButton {
  text: string;
  data: string;
}

export interface ChatMessageOptions {
  /** Rows of buttons; an empty list removes the buttons a message had. */
  buttons?: ChatButton[][];
  /** The platform's id of the message this one answers. */
  replyTo?: string;
}

/**
 * Sends and edits messages on one platform. Text goes in as markdown and each platform renders
 * its own dialect; a rate limit is waited out inside (the platform's retry_after), so a call that
 * returns has been delivered once.
 */
export interface ChatMessenger {
  readonly platform: ReplyPlatform;
  /** How often one message may be edited while a turn streams, below the platform's limit. */
  readonly editIntervalMs: number;
  /**
   * The least time between two writes to one message, which the final edit waits instead of
   * editIntervalMs (unset: editIntervalMs): an answer that is ready is not held back for the
   * streaming pace, only kept inside the platform's spacing of writes.
   */
  readonly writeGapMs?: number;
  /**
   * The answer replaces the placeholder in batch mode too, instead of following as new messages:
   * code hosts keep one tracking comment per request (a chat wants the answer to notify).
   */
  readonly answersInPlace?: boolean;
  /** Splits markdown into the parts this platform accepts as one message each, without breaking code blocks. */
  split(markdown: string): string[];
  /** Sends one part (from split) and answers the new message's id. */
  send(address: ChatAddress, markdown: string, options?: ChatMessageOptions): Promise<string>;
  /** Replaces a message's text; an edit that changes nothing is not an error. */
  edit(
    address: ChatAddress,
    messageId: string,
    markdown: string,
    options?: ChatMessageOptions,
  ): Promise<void>;
}

/**
 * The platform asked to be called again later than a call should wait in place (a rate limit
 * resetting in minutes): the activity fails and Temporal tries it again once `waitMs` has passed.
 */
export class PlatformAsksToWait extends Error {
  constructor(
    readonly waitMs: number,
    options: { cause: unknown },
  ) {
    super(`the platform asks to call again in ${Math.ceil(waitMs / 1000)} s`, options);
    this.name = 'PlatformAsksToWait';
  }
}

/** A refusal of the platform that a retry cannot change (a chat the bot left, a malformed text). */
export class ChatDeliveryRefused extends Error {
  constructor(
    message: string,
    readonly platform: ReplyPlatform,
  ) {
    super(message);
    this.name = 'ChatDeliveryRefused';
  }
}
