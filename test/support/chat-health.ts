import { jsonClient } from './json-client.js';

/** What the chat door tests read of GET /api/health. */
export interface ChatHealthBody {
  status: string;
  chat: Record<'telegram' | 'discord' | 'slack', { status: string; detail?: string }>;
}

/** Polls /api/health until its chat adapters' states satisfy `ready` (20 s at most). */
export async function waitForChatHealth(
  url: string,
  ready: (chat: ChatHealthBody['chat']) => boolean,
): Promise<ChatHealthBody> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await jsonClient(url)<ChatHealthBody>('GET', '/api/health');
    if (ready(body.chat)) return body;
    if (Date.now() > deadline) throw new Error(`health never showed it: ${JSON.stringify(body.chat)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
