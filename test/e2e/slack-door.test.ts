import { expect } from 'chai';
import { chatDoorServices } from '../../cli/boot/chat-adapters.js';
import { SlackReceiver } from '../../adapters/slack/slack-receiver.js';
import type { AdapterState } from '../../domain/chat/adapter-state.js';
import type { ChatStreamingMode } from '../../domain/chat/chat-reply.js';
import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import { startFakeSlack, type BotMessage, type FakeSlack } from '../support/fakes/slack-api.js';
import { jsonClient } from '../support/json-client.js';
import { waitForChatHealth } from '../support/chat-health.js';

const ALLOWED = ['U0111', 'U0222', 'U0333', 'U0444', 'U0555', 'U0666'];
const STRANGER = 'U0999';

/**
 * The Slack door end to end: Bolt in Socket Mode against a fake Slack on loopback (its Web API over
 * HTTP and its socket over a WebSocket), messages through the same services as the API to the real
 * workers and the fake assistant, and replies through the chat reply workflow's activities.
 */
describe('the Slack door (Bolt in Socket Mode against a fake Slack, live workers, fake assistant)', function () {
  this.timeout(2 * 60_000);
  const [sqlite] = databaseKinds();
  let slack: FakeSlack;
  let core: LiveCore;
  let receiver: SlackReceiver | undefined;
  let currentState: () => AdapterState | undefined = () => undefined;

  async function useReceiver(mode: ChatStreamingMode, botToken = slack.botToken): Promise<SlackReceiver> {
    await receiver?.stop();
    const started = new SlackReceiver({
      connection: { botToken, appToken: slack.appToken, apiUrl: slack.apiUrl },
      door: chatDoorServices(core.context, core.workers.temporal.client, {
        taskQueue: core.workers.taskQueue,
        searchAttributes: false,
        maxConcurrent: 4,
      }),
      settings: { mode, botName: 'Cairn', allowedUserIds: ALLOWED },
      logger: core.context.logger,
    });
    started.start();
    receiver = started;
    currentState = () => started.state;
    return started;
  }

  async function connected(mode: ChatStreamingMode): Promise<void> {
    const before = slack.connectionsOpened;
    await useReceiver(mode);
    await slack.waitFor(() => slack.connectionsOpened > before && slack.connections === 1, 'the socket');
  }

  /** The bot's messages in a channel once `done` holds for them. */
  async function botMessagesWhen(channel: string, done: (messages: BotMessage[]) => boolean, what: string) {
    return slack.waitFor(() => {
      const messages = slack.messages(channel);
      return done(messages) ? messages : undefined;
    }, what);
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 800));

  /** Assistant turns whose prompt holds `text` (title requests, which quote the message, left out). */
  const turnsWith = (text: string) =>
    core.fakes
      .invocations()
      .filter((call) => String(call.prompt).includes(text) && !String(call.prompt).includes('<message>'))
      .length;

  before(async () => {
    slack = await startFakeSlack();
    core = await startLiveCore(
      sqlite!,
      { 'README.md': '# shop\n', '.cairn/workflows/gated.yaml': GATED_WORKFLOW },
      {
        env: {
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_APP_TOKEN: slack.appToken,
          SLACK_API_URL: slack.apiUrl,
        },
        app: { adapters: ['web', 'slack'], chatAdapterStates: () => ({ slack: currentState() }) },
      },
    );
  });

  after(async () => {
    await receiver?.stop();
    await core?.close();
    await slack?.close();
  });

  it('streams a direct message answer: a placeholder edited as the text arrives, the last edit final', async () => {
    await connected('stream');
    const answer =
      'The quick brown fox jumps over the lazy dog, then naps in the warm afternoon sun ' +
      'until the shadows grow long and the evening wind carries the smell of rain over the hills.';
    const sent = slack.pushMessage({
      channel: 'D0111',
      user: 'U0111',
      text: `[fake:slow 120]\n[fake:reply ${answer}]`,
    });
    const [message] = await botMessagesWhen('D0111', (all) => all[0]?.text === answer, 'the final answer');
    expect(message!.history[0]).to.equal('…');
    expect(message!.edits).to.be.at.least(2);
    for (const text of message!.history.slice(1, -1)) {
      expect(answer.startsWith(text.replace(/…$/, '').trim())).to.equal(true);
    }
    // The envelope was acknowledged once the message was stored, well inside Slack's 3 s.
    const [delivery] = slack.deliveries(sent.eventId);
    expect(slack.ackDelayMs(delivery!.envelopeId)).to.be.a('number').and.below(3_000);
    const edits = slack.callsOf('chat.update').filter((call) => call.params.channel === 'D0111');
    for (let i = 1; i < edits.length; i++) expect(edits[i]!.at - edits[i - 1]!.at).to.be.at.least(1_400);
  });

  it('answers a mention in its thread (batch mode), follows up in that thread, and ignores channel chatter', async () => {
    await connected('batch');
    const channel = 'C0TEAM';
    slack.pushMessage({ channel, user: 'U0222', text: 'lunch anyone?' });
    const mention = slack.pushMention({
      channel,
      user: 'U0222',
      text: '[fake:tool Bash {"command":"npm test"}]\n[fake:reply **all** green & fine]',
    });
    const messages = await botMessagesWhen(
      channel,
      (all) => all.at(-1)?.text === '*all* green &amp; fine',
      'the batch answer',
    );
    const [start, answer] = messages.slice(-2);
    expect(start!.history[0]).to.equal('Cairn is working on it…');
    expect(start!.text).to.equal('Cairn answered (1 tool call).');
    expect(start!.threadTs).to.equal(mention.ts);
    expect(answer!.threadTs).to.equal(mention.ts);
    expect(answer!.edits).to.equal(0);
    // A reply in that thread, without a mention, goes to the same conversation.
    slack.pushMessage({ channel, user: 'U0222', text: '[fake:reply second answer]', threadTs: mention.ts });
    await botMessagesWhen(channel, (all) => all.at(-1)?.text === 'second answer', 'the follow-up');
    // A reply in another thread the bot is not part of is chatter.
    const other = slack.pushMessage({ channel, user: 'U0222', text: 'unrelated' });
    slack.pushMessage({ channel, user: 'U0222', text: 'still unrelated', threadTs: other.ts });
    await settle();
    expect([turnsWith('all** green'), turnsWith('second answer'), turnsWith('unrelated')]).to.deep.equal([
      1, 1, 0,
    ]);
    expect(turnsWith('lunch anyone')).to.equal(0);
  });

  it('answers commands (typed, or through the /cairn slash command), and a stranger once with a refusal and nothing else', async () => {
    await connected('stream');
    const turnsBefore = core.fakes.invocations().length;
    slack.pushMessage({ channel: 'D0333', user: 'U0333', text: '/help' });
    const [help] = await botMessagesWhen('D0333', (all) => all.length === 1, 'the help');
    expect(help!.text).to.contain('/workflow run').and.contain('/cancel');
    slack.pushMessage({ channel: 'D0999', user: STRANGER, text: 'let me in' });
    const [refusal] = await botMessagesWhen('D0999', (all) => all.length === 1, 'the refusal');
    expect(refusal!.text).to.contain('not allowed').and.contain(STRANGER);
    slack.pushMessage({ channel: 'D0333', user: 'U0333', text: '/status' });
    await botMessagesWhen('D0333', (all) => all.length === 2, 'the status');
    // The slash command Slack's client sends for `/cairn status` and a bare `/cairn`.
    const envelope = slack.pushSlashCommand({
      command: '/cairn',
      text: 'status',
      channel: 'D0333',
      user: 'U0333',
    });
    await botMessagesWhen('D0333', (all) => all.length === 3, 'the slash status');
    expect(slack.messages('D0333')[2]!.text).to.equal(slack.messages('D0333')[1]!.text);
    expect(slack.ackDelayMs(envelope)).to.be.a('number').and.below(3_000);
    slack.pushSlashCommand({ command: '/cairn', text: '', channel: 'D0333', user: 'U0333' });
    const [, , , slashHelp] = await botMessagesWhen('D0333', (all) => all.length === 4, 'the slash help');
    expect(slashHelp!.text).to.contain('/workflow run');
    expect(slack.messages('D0999')).to.have.length(1);
    expect(core.fakes.invocations().length).to.equal(turnsBefore);
  });

  it('splits a 6,000-character answer with a code block into messages Slack accepts, the block whole', async () => {
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(30);
    const code = Array.from({ length: 60 }, (_, i) => `const value${i} = compute(${i}) && check(${i} < 10);`);
    const long = `${paragraph}\n\n${paragraph}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${paragraph}\n\n${paragraph}`;
    expect(long.length).to.be.above(6_000);
    slack.pushMessage({ channel: 'D0444', user: 'U0444', text: `[fake:reply-json ${JSON.stringify(long)}]` });
    const messages = await botMessagesWhen(
      'D0444',
      // Every part posted: the paragraphs after the code block are there (the parts arrive in turn).
      (all) => {
        const text = all.map((message) => message.text).join('\n');
        const lastLine = text.lastIndexOf('const value59');
        return lastLine >= 0 && text.indexOf('Lorem', lastLine) > lastLine && !all[0]!.text.startsWith('…');
      },
      'every part',
    );
    for (const message of messages) expect(message.text.length).to.be.at.most(3_000);
    const blocks = messages.map((message) => message.text).filter((text) => text.includes('```'));
    for (const text of blocks) expect(text.split('```').length % 2, 'fences in pairs').to.equal(1);
    const all = messages.map((message) => message.text).join('\n');
    for (let i = 0; i < code.length; i++) {
      expect(all).to.contain(`const value${i} = compute(${i}) &amp;&amp; check(${i} &lt; 10);`);
    }
  });

  it('waits out a 429 with its Retry-After and delivers the message once', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    slack.pushMessage({ channel: 'D0555', user: 'U0555', text: '/help' });
    await botMessagesWhen('D0555', (all) => all.length >= 1, 'the help after the wait');
    await settle();
    expect(slack.messages('D0555')).to.have.length(1);
  });

  it('answers an event once when Slack re-sends it, and a mention once although Slack sends it twice', async () => {
    const sent = slack.pushMessage({ channel: 'D0555', user: 'U0555', text: '[fake:reply once only]' });
    await botMessagesWhen('D0555', (all) => all.at(-1)?.text === 'once only', 'the answer');
    slack.resend(sent.eventId);
    // Slack's second event of a mention: the same message as a `message` event.
    const mention = slack.pushMention({ channel: 'C0TWICE', user: 'U0555', text: '[fake:reply one answer]' });
    slack.pushEvent({
      type: 'message',
      user: 'U0555',
      text: `<@${slack.botUserId}> [fake:reply one answer]`,
      ts: mention.ts,
      channel: 'C0TWICE',
      channel_type: 'channel',
    });
    await botMessagesWhen('C0TWICE', (all) => all.at(-1)?.text === 'one answer', 'the mention answer');
    await settle();
    expect(slack.messages('D0555').filter((message) => message.text === 'once only')).to.have.length(1);
    expect(slack.messages('C0TWICE')).to.have.length(1);
    expect([turnsWith('once only'), turnsWith('one answer')]).to.deep.equal([1, 1]);
    expect(slack.unacked()).to.deep.equal([]);
  });

  it('reports a run started from the chat and decides its gates with buttons, a modal, or on the web', async () => {
    await connected('stream');
    const api = jsonClient(core.app.url);
    const registered = await api<{ name: string }>('POST', '/api/codebases', { path: core.repo.path });
    expect(registered.status).to.be.oneOf([200, 201]);
    const channel = 'D0666';
    const say = (text: string) => slack.pushMessage({ channel, user: 'U0666', text });
    say(`/codebase ${registered.body.name}`);
    await botMessagesWhen(channel, (all) => all.length === 1, 'the codebase answer');
    expect(slack.messages(channel)[0]!.text).to.contain('new conversation');

    async function startGatedRun() {
      const before = slack.messages(channel).length;
      say('/workflow run gated');
      const messages = await botMessagesWhen(
        channel,
        (all) => all.slice(before).some((message) => message.text.includes('Approval needed')),
        'the gate message',
      );
      const fresh = messages.slice(before);
      const runId = /Started run `([0-9a-f-]{36})`/.exec(fresh[0]!.text)?.[1];
      expect(runId, fresh[0]!.text).to.be.a('string');
      const progress = fresh.find((message) => message.text.startsWith('Run *gated*'))!;
      const gate = fresh.find((message) => message.text.includes('Approval needed'))!;
      expect(gate.text).to.contain('Ship it?');
      const buttons = buttonsOf(gate);
      expect(buttons.map((button) => button.action_id)).to.deep.equal([
        'cairn_gate_approve',
        'cairn_gate_reject',
      ]);
      expect(buttons[0]!.value).to.match(new RegExp(`^approve:${runId}:\\d+$`));
      return { runId: runId!, progress, gate };
    }
    const current = (ts: string) => slack.messages(channel).find((message) => message.ts === ts)!;

    // Approve: the buttons go, the decision shows, the run completes; a second press does nothing.
    const first = await startGatedRun();
    slack.pushButton({ channel, user: 'U0666', messageTs: first.gate.ts, actionId: 'cairn_gate_approve' });
    await slack.waitFor(
      () => current(first.gate.ts).text.includes('Approved by slack:U0666'),
      'the decision',
    );
    expect(buttonsOf(current(first.gate.ts))).to.deep.equal([]);
    await slack.waitFor(() => current(first.progress.ts).text.includes('completed'), 'the run to complete');
    const run = await api<{ run: { status: string } }>('GET', `/api/workflows/runs/${first.runId}`);
    expect(run.body.run.status).to.equal('completed');
    const noticesBefore = slack.ephemerals(channel).length;
    slack.pushInteraction({
      type: 'block_actions',
      user: { id: 'U0666', username: 'u', name: 'u', team_id: slack.teamId },
      api_app_id: slack.appId,
      token: 'fake-verification-token',
      container: { type: 'message', message_ts: first.gate.ts, channel_id: channel, is_ephemeral: false },
      trigger_id: 'trigger-replayed',
      team: { id: slack.teamId, domain: 'cairn-test' },
      channel: { id: channel, name: channel },
      message: { type: 'message', ts: first.gate.ts, text: first.gate.text, blocks: first.gate.blocks },
      actions: [
        {
          action_id: 'cairn_gate_approve',
          block_id: 'x',
          value: buttonsOf(first.gate)[0]!.value,
          type: 'button',
          action_ts: '1',
        },
      ],
    });
    await slack.waitFor(() => slack.ephemerals(channel).length > noticesBefore, 'the second notice');
    expect(slack.ephemerals(channel).at(-1)!.text).to.contain('not waiting');

    // Reject: a modal asks for the reason, and its submission rejects the run with it.
    const second = await startGatedRun();
    const viewsBefore = slack.views.length;
    slack.pushButton({ channel, user: 'U0666', messageTs: second.gate.ts, actionId: 'cairn_gate_reject' });
    const view = await slack.waitFor(() => slack.views[viewsBefore], 'the reason modal');
    slack.pushViewSubmission({
      user: 'U0666',
      viewId: view.id,
      values: { reason: { reason_input: { type: 'plain_text_input', value: 'not this week' } } },
    });
    await slack.waitFor(
      () => current(second.gate.ts).text.includes('Rejected by slack:U0666: not this week'),
      'the rejection',
    );
    await slack.waitFor(() => current(second.progress.ts).text.includes('cancelled'), 'the cancelled run');

    // Approved through the API (the web page): the chat's gate message follows.
    const third = await startGatedRun();
    expect(
      (await api('POST', `/api/workflows/runs/${third.runId}/approve`, { comment: 'from the web' })).status,
    ).to.equal(200);
    await slack.waitFor(() => current(third.gate.ts).text.includes('from the web'), 'the web decision');
    expect(buttonsOf(current(third.gate.ts))).to.deep.equal([]);
  });

  it('keeps the service healthy with a wrong token, and /api/health says why', async () => {
    await useReceiver('stream', 'xoxb-WRONG');
    const body = await waitForChatHealth(core.app.url, (chat) => chat.slack.status === 'failing');
    expect(body.status).to.equal('ok');
    expect(body.chat.slack.detail).to.contain('SLACK_BOT_TOKEN').and.not.contain('WRONG');
    await connected('stream');
    const ready = await waitForChatHealth(core.app.url, (chat) => chat.slack.status === 'ready');
    expect(ready.chat.slack.detail).to.equal(`<@${slack.botUserId}>`);
  });
});

interface SlackButton {
  action_id: string;
  value: string;
}

function buttonsOf(message: BotMessage): SlackButton[] {
  const blocks = (message.blocks ?? []) as Array<{ type: string; elements?: SlackButton[] }>;
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => block.elements ?? []);
}
