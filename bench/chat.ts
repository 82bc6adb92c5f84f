// Chat doors under load: a real `cairn start` (embedded Temporal, SQLite, the fake claude) with one
// chat adapter pointed at its platform's fake on loopback (Telegram's Bot API, Slack's Web API and
// socket, Discord's REST API and gateway). 50 chats each send a message at once; every answer
// streams. Targets (issue 16): all 50 get their answer, none twice; no chat is edited more often
// than its platform allows. BENCH_PLATFORMS picks the platforms (default all three). Prints JSON.
import { performance } from 'node:perf_hooks';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { startFakeDiscord } from '../test/support/fakes/discord-api.js';
import { startFakeSlack } from '../test/support/fakes/slack-api.js';
import { startFakeTelegram } from '../test/support/fakes/telegram-bot-api.js';
import { callJson, printFigures, stats, withStandaloneCairn } from './support.js';

const CHATS = Number(process.env.BENCH_CHATS ?? 50);
const PLATFORMS = (process.env.BENCH_PLATFORMS ?? 'telegram,slack,discord').split(',');
const answerOf = (chat: number) => `Answer for chat ${chat}: ${'streamed words '.repeat(12).trim()}.`;
const promptOf = (chat: number) => `[fake:slow 60]\n[fake:reply ${answerOf(chat)}]`;

/** What the bench needs of a platform's fake: send as a user, read the bot's messages and edits. */
interface PlatformHarness {
  name: 'telegram' | 'slack' | 'discord';
  env: Record<string, string>;
  /** The platform's edit limit, in words, and the shortest gap between two edits it implies. */
  limit: string;
  send(chat: number): void;
  /** The texts of the bot's messages in that chat. */
  texts(chat: number): string[];
  /** When each edit of the chat's messages arrived (Date.now()). */
  editTimes(chat: number): number[];
  close(): Promise<void>;
}

async function telegramHarness(): Promise<PlatformHarness> {
  const fake = await startFakeTelegram();
  const chatId = (chat: number) => 10_000 + chat;
  return {
    name: 'telegram',
    env: {
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_STREAMING_MODE: 'stream',
    },
    limit: 'about 1 edit per second per chat',
    send: (chat) =>
      void fake.pushMessage({ chatId: chatId(chat), userId: chatId(chat), text: promptOf(chat) }),
    texts: (chat) => fake.messages(chatId(chat)).map((message) => message.text),
    editTimes: (chat) =>
      fake
        .callsOf('editMessageText')
        .filter((call) => call.params.chat_id === chatId(chat))
        .map((call) => call.at),
    close: () => fake.close(),
  };
}

async function slackHarness(): Promise<PlatformHarness> {
  const fake = await startFakeSlack();
  const channel = (chat: number) => `D0${chat}`;
  return {
    name: 'slack',
    env: {
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      SLACK_STREAMING_MODE: 'stream',
    },
    limit: 'chat.update is Tier 3 (about 50 a minute); Cairn edits one message at most every 1.5 s',
    send: (chat) =>
      void fake.pushMessage({ channel: channel(chat), user: `U0${chat}`, text: promptOf(chat) }),
    texts: (chat) => fake.messages(channel(chat)).map((message) => message.text),
    editTimes: (chat) =>
      fake
        .callsOf('chat.update')
        .filter((call) => call.params.channel === channel(chat))
        .map((call) => call.at),
    close: () => fake.close(),
  };
}

async function discordHarness(): Promise<PlatformHarness> {
  const fake = await startFakeDiscord();
  const channel = (chat: number) => String(900_000_000_000_000_000n + BigInt(chat));
  return {
    name: 'discord',
    env: { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.restUrl, DISCORD_STREAMING_MODE: 'stream' },
    limit: '5 edits per 5 s per channel',
    send: (chat) =>
      void fake.pushMessage({
        channelId: channel(chat),
        authorId: String(800_000 + chat),
        content: promptOf(chat),
      }),
    texts: (chat) => fake.messages(channel(chat)).map((message) => message.content),
    editTimes: (chat) =>
      fake
        .callsOf('PATCH /channels/:channelId/messages/:messageId')
        .filter((call) => call.path.startsWith(`/channels/${channel(chat)}/`))
        .map((call) => call.at),
    close: () => fake.close(),
  };
}

async function waitUntil<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The shortest gap between two edits of one chat, and the most edits it got in any one second or five. */
function editRate(times: number[]) {
  let minGapMs = Number.POSITIVE_INFINITY;
  let maxPerSecond = 0;
  let maxPerFiveSeconds = 0;
  for (let i = 0; i < times.length; i++) {
    if (i > 0) minGapMs = Math.min(minGapMs, times[i]! - times[i - 1]!);
    const within = (ms: number) => times.filter((at) => at >= times[i]! && at < times[i]! + ms).length;
    maxPerSecond = Math.max(maxPerSecond, within(1_000));
    maxPerFiveSeconds = Math.max(maxPerFiveSeconds, within(5_000));
  }
  return { edits: times.length, minGapMs, maxPerSecond, maxPerFiveSeconds };
}

async function measure(base: string, platform: PlatformHarness) {
  await waitUntil(async () => {
    const health = await callJson<{ chat: Record<string, { status: string }> }>(base, 'GET', '/api/health');
    return health.chat[platform.name]?.status === 'ready' ? true : undefined;
  }, 60_000);
  const chats = Array.from({ length: CHATS }, (_, index) => index + 1);
  const sentAt = new Map<number, number>();
  const answeredAt = new Map<number, number>();
  const started = performance.now();
  for (const chat of chats) {
    sentAt.set(chat, performance.now());
    platform.send(chat);
  }
  await waitUntil(() => {
    for (const chat of chats) {
      if (!answeredAt.has(chat) && platform.texts(chat).includes(answerOf(chat))) {
        answeredAt.set(chat, performance.now());
      }
    }
    return answeredAt.size === chats.length ? true : undefined;
  }, 10 * 60_000);
  // Anything sent twice would arrive within a few edit intervals of the last answer.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const rates = chats.map((chat) => editRate(platform.editTimes(chat)));
  return {
    chats: CHATS,
    answered: answeredAt.size,
    chatsWithMoreThanOneMessage: chats.filter((chat) => platform.texts(chat).length !== 1).length,
    elapsedMs: Math.round(performance.now() - started),
    messageToFinalAnswerMs: stats(chats.map((chat) => answeredAt.get(chat)! - sentAt.get(chat)!)),
    editsPerChat: stats(rates.map((rate) => rate.edits)),
    shortestGapBetweenEditsOfOneChatMs: Math.min(...rates.map((rate) => rate.minGapMs)),
    mostEditsOfOneChatInAnySecond: Math.max(...rates.map((rate) => rate.maxPerSecond)),
    mostEditsOfOneChatInAnyFiveSeconds: Math.max(...rates.map((rate) => rate.maxPerFiveSeconds)),
    platformLimit: platform.limit,
  };
}

const HARNESSES = { telegram: telegramHarness, slack: slackHarness, discord: discordHarness };

for (const name of PLATFORMS) {
  const start = HARNESSES[name as keyof typeof HARNESSES];
  if (!start) throw new Error(`BENCH_PLATFORMS: unknown platform ${name}`);
  const platform = await start();
  const fakes = fakeAssistants();
  try {
    const figures = await withStandaloneCairn({ ...fakes.env, ...platform.env }, (base) =>
      measure(base, platform),
    );
    printFigures(`chat-${name}`, {
      command: `BENCH_PLATFORMS=${name} node bin/run-ts.mjs bench/chat.ts`,
      data: `${CHATS} ${name} chats, one message each at once, answers streamed (fake claude, 8 characters every 60 ms)`,
      ...figures,
    });
  } finally {
    await platform.close();
    fakes.cleanup();
  }
}
