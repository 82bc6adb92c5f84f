import type { ChatAddress } from '../../domain/chat/chat-address.js';
import type { ChatMessageOptions, ChatMessenger } from '../../domain/chat/chat-messenger.js';

/**
 * Edits one message no more often than the platform allows, and only when its text changes. A
 * newer text that comes too soon waits for a later round; a final one waits out the platform's
 * gap between writes (messenger.writeGapMs, else the edit interval).
 */
export class ThrottledEditor {
  private shown: string;
  // The message was posted just now: that counts against the platform's rate too.
  private lastEditAt = Date.now();

  constructor(
    private readonly messenger: ChatMessenger,
    private readonly address: ChatAddress,
    private readonly messageId: string,
    shownText: string,
    private readonly signal: AbortSignal,
  ) {
    this.shown = shownText;
  }

  async show(text: string, options: ChatMessageOptions & { final?: boolean } = {}): Promise<void> {
    const { final, ...message } = options;
    if (text === this.shown && !final) return;
    if (text === this.shown && message.buttons === undefined) return;
    const gap = final
      ? (this.messenger.writeGapMs ?? this.messenger.editIntervalMs)
      : this.messenger.editIntervalMs;
    const wait = this.lastEditAt + gap - Date.now();
    if (wait > 0) {
      if (!final) return;
      await pause(wait, this.signal);
    }
    await this.messenger.edit(this.address, this.messageId, text, message);
    this.shown = text;
    this.lastEditAt = Date.now();
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first (the activity was cancelled). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}
