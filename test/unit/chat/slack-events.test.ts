import { expect } from 'chai';
import {
  inboundFromSlackEvent,
  slackTextToPlain,
  type SlackMessageEvent,
} from '../../../adapters/slack/slack-events.js';

const BOT = { userId: 'U0BOT', teamId: 'T0' };

function event(fields: Partial<SlackMessageEvent>): SlackMessageEvent {
  return {
    type: 'message',
    user: 'U1',
    text: 'hi',
    ts: '1.000100',
    channel: 'C1',
    channel_type: 'channel',
    ...fields,
  };
}

describe('adapters/slack/slack-events', () => {
  it('takes a direct message whole, in its channel, keyed by channel and ts', () => {
    const found = inboundFromSlackEvent(event({ channel: 'D1', channel_type: 'im', text: 'hello' }), BOT);
    expect(found?.addressing).to.equal('direct');
    expect(found?.inbound).to.deep.include({
      text: 'hello',
      deliveryId: 'D1:1.000100',
      messageId: '1.000100',
    });
    expect(found?.inbound.address).to.deep.equal({ platform: 'slack', chatId: 'D1' });
    const threaded = inboundFromSlackEvent(
      event({ channel: 'D1', channel_type: 'im', thread_ts: '0.5' }),
      BOT,
    );
    expect(threaded?.inbound.address).to.deep.equal({ platform: 'slack', chatId: 'D1', threadId: '0.5' });
  });

  it('answers a channel mention in its thread (a top-level mention starts one), the mention taken out', () => {
    const top = inboundFromSlackEvent(event({ type: 'app_mention', text: '<@U0BOT> /status' }), BOT);
    expect(top?.addressing).to.equal('mention');
    expect(top?.inbound.text).to.equal('/status');
    expect(top?.inbound.address).to.deep.equal({ platform: 'slack', chatId: 'C1', threadId: '1.000100' });
    const inThread = inboundFromSlackEvent(
      event({ type: 'app_mention', text: 'so <@U0BOT> why?', thread_ts: '0.9' }),
      BOT,
    );
    expect(inThread?.inbound.address.threadId).to.equal('0.9');
  });

  it('leaves alone what is not for the bot: edits, bots, itself, channel chatter, the message twin of a mention', () => {
    expect(inboundFromSlackEvent(event({ subtype: 'message_changed' }), BOT)).to.equal(undefined);
    expect(inboundFromSlackEvent(event({ bot_id: 'B2' }), BOT)).to.equal(undefined);
    expect(inboundFromSlackEvent(event({ user: 'U0BOT' }), BOT)).to.equal(undefined);
    expect(inboundFromSlackEvent(event({ text: 'lunch?' }), BOT)).to.equal(undefined);
    expect(inboundFromSlackEvent(event({ text: '<@U0BOT> hi' }), BOT)).to.equal(undefined);
    expect(inboundFromSlackEvent(event({ type: 'app_mention', text: '<@U0BOT>  ' }), BOT)).to.equal(
      undefined,
    );
  });

  it('asks the caller about a thread reply without a mention', () => {
    const reply = inboundFromSlackEvent(event({ text: 'and then?', thread_ts: '0.9' }), BOT);
    expect(reply?.addressing).to.equal('thread');
    expect(reply?.inbound.address.threadId).to.equal('0.9');
  });

  it('turns Slack wire text back into what was typed', () => {
    expect(slackTextToPlain('/codebase <https://github.com/a/b.git>')).to.equal(
      '/codebase https://github.com/a/b.git',
    );
    expect(slackTextToPlain('see <https://x.test/?a=1&amp;b=2|the page>')).to.equal(
      'see https://x.test/?a=1&b=2',
    );
    expect(slackTextToPlain('ask <@U2> in <#C9|general>, <!here>')).to.equal('ask @U2 in #general, @here');
    expect(slackTextToPlain('a &lt; b &amp;&amp; c &gt; d')).to.equal('a < b && c > d');
  });
});
