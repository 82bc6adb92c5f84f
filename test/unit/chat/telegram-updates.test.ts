import { expect } from 'chai';
import type { Update } from 'grammy/types';
import { inboundFromUpdate } from '../../../adapters/telegram/telegram-updates.js';

const BOT = { id: 42, username: 'cairn_bot' };

function update(message: Record<string, unknown>, chatType = 'private', chatId = 7): Update {
  return {
    update_id: 1001,
    message: {
      message_id: 5,
      date: 0,
      chat: { id: chatId, type: chatType },
      from: { id: 7, is_bot: false, first_name: 'Ada', username: 'ada' },
      ...message,
    },
  } as unknown as Update;
}

describe('adapters/telegram: which updates become messages', () => {
  it('takes every text of a private chat, with the delivery and message ids', () => {
    expect(inboundFromUpdate(update({ text: 'hello\n  world' }), BOT)).to.deep.equal({
      address: { platform: 'telegram', chatId: '7' },
      user: { id: '7', name: 'ada' },
      text: 'hello\n  world',
      deliveryId: '7:5',
      messageId: '5',
    });
  });

  it('in a group, takes commands, replies to the bot and mentions (without the mention), and nothing else', () => {
    const group = (message: Record<string, unknown>) =>
      inboundFromUpdate(update(message, 'supergroup', -100), BOT);
    expect(group({ text: 'chatter among people' })).to.equal(undefined);
    expect(group({ text: '/status@cairn_bot' })?.text).to.equal('/status@cairn_bot');
    expect(group({ text: '/status@Cairn_Bot' })?.text).to.equal('/status@Cairn_Bot');
    expect(group({ text: '/cancel@other_bot' }), 'a command for another bot').to.equal(undefined);
    expect(inboundFromUpdate(update({ text: '/new@other_bot' }), BOT), 'in private too').to.equal(undefined);
    expect(group({ text: '@Cairn_Bot fix the\nbuild' })?.text).to.equal('fix the\nbuild');
    expect(group({ text: 'yes', reply_to_message: { from: { id: 42 } } })?.text).to.equal('yes');
  });

  it('gives a forum topic a conversation of its own', () => {
    const inbound = inboundFromUpdate(
      update({ text: '@cairn_bot hi', is_topic_message: true, message_thread_id: 9 }, 'supergroup', -100),
      BOT,
    );
    expect(inbound?.address).to.deep.equal({ platform: 'telegram', chatId: '-100', threadId: '9' });
  });

  it('ignores what it does not handle: photos, bots, empty mentions, other update kinds', () => {
    expect(inboundFromUpdate(update({ photo: [] }), BOT)).to.equal(undefined);
    expect(
      inboundFromUpdate(update({ text: 'hi', from: { id: 8, is_bot: true, first_name: 'B' } }), BOT),
    ).to.equal(undefined);
    expect(inboundFromUpdate(update({ text: '@cairn_bot' }, 'group', -5), BOT)).to.equal(undefined);
    expect(inboundFromUpdate({ update_id: 3, edited_message: {} } as unknown as Update, BOT)).to.equal(
      undefined,
    );
  });
});
