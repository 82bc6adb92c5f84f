import { expect } from 'chai';
import * as api from '@opentelemetry/api';
import { tracingHooks } from '../../../config/tracing.js';
import { createDiscordMessenger } from '../../../infra/chat/discord/discord-messenger.js';
import { createSlackMessenger } from '../../../infra/chat/slack/slack-messenger.js';
import type { StartedTracing } from '../../../infra/telemetry/start-tracing.js';
import type { ChatMessenger } from '../../../domain/chat/chat-messenger.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver.js';
import { startFakeDiscord, type FakeDiscord } from '../../support/fakes/discord-api.js';
import { startFakeSlack, type FakeSlack } from '../../support/fakes/slack-api.js';
import { startTestTracing } from '../../support/test-tracing.js';

/** OTLP's SpanKind for a client span (SPAN_KIND_CLIENT). */
const CLIENT = 3;

describe("Slack's and Discord's API calls as client spans of the trace they are made in", function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  let tracing: StartedTracing;
  let slack: FakeSlack;
  let discord: FakeDiscord;

  before(async () => {
    receiver = await startOtlpReceiver();
    [slack, discord] = await Promise.all([startFakeSlack(), startFakeDiscord()]);
    tracing = startTestTracing(receiver);
  });

  after(async () => {
    await tracing?.shutdown();
    await Promise.all([receiver?.close(), slack?.close(), discord?.close()]);
  });

  const exported = async () => {
    await tracing.spanProcessor.forceFlush();
    return receiver.spans.splice(0);
  };

  /** Sends and edits one message inside an activity's span; the spans exported for it. */
  async function sendAndEditInTrace(messenger: ChatMessenger, chatId: string) {
    const address = { platform: messenger.platform, chatId } as Parameters<ChatMessenger['send']>[0];
    // Outside any trace: no span.
    await messenger.send(address, 'untraced');
    expect(await exported()).to.deep.equal([]);
    const activity = tracingHooks()!.tracer.startSpan('RunActivity:deliverTurnReply');
    await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, activity), async () => {
      const id = await messenger.send(address, 'first');
      await messenger.edit(address, id, 'second');
    });
    activity.end();
    const spans = await exported();
    const children = spans.filter((span) => span.parentSpanId === activity.spanContext().spanId);
    for (const span of children) {
      expect(span.traceId).to.equal(activity.spanContext().traceId);
      expect(span.kind, span.name).to.equal(CLIENT);
    }
    return children.map((span) => span.name);
  }

  it('traces Slack chat.postMessage and chat.update', async () => {
    const messenger = createSlackMessenger({ botToken: slack.botToken, apiUrl: slack.apiUrl });
    expect(await sendAndEditInTrace(messenger, 'C0TRACED')).to.deep.equal([
      'slack chat.postMessage',
      'slack chat.update',
    ]);
    expect(slack.messages('C0TRACED').map((message) => message.text)).to.include('second');
  });

  it("traces Discord's message creation and edit", async () => {
    const messenger = createDiscordMessenger({ token: discord.token, apiUrl: discord.restUrl });
    expect(await sendAndEditInTrace(messenger, discord.channelId)).to.deep.equal([
      'discord create message',
      'discord edit message',
    ]);
    expect(discord.messages(discord.channelId).map((message) => message.content)).to.include('second');
  });
});
