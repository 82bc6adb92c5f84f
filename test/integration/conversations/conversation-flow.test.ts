import { expect } from 'chai';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { fakeAssistants, type FakeAssistantSetup } from '../../support/fake-assistants.js';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { openSse, type SseConnection, type SseFrame } from '../../support/sse-client.js';
import { testServiceContext } from '../../support/service-context.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { jsonClient } from '../../support/json-client.js';
import { conversationWorkflowId } from '../../../domain/conversations/conversation-workflow.js';
import { appendMessage } from '../../../db/repositories/messages.js';
import { sweepOpenTurns } from '../../../worker/turn-sweeper.js';

interface Accepted {
  message_id: number;
  conversation_id: string;
  status: 'started' | 'queued';
  position: number;
}

interface Problem {
  code: string;
}

interface StoredMessage {
  id: number;
  role: string;
  content: string;
  metadata: Record<string, unknown>;
  turn_status: string | null;
  reply_to_message_id: number | null;
}

for (const kind of databaseKinds()) {
  describe(`conversations answered by an assistant (${kind.name})`, function () {
    this.timeout(120_000);
    let test: TestDatabase;
    let workers: RunningTestWorkers;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    let fakes: FakeAssistantSetup;
    const streams: SseConnection[] = [];
    const repos: TempRepo[] = [];

    async function start(options: { maxSessions?: number; env?: Record<string, string> } = {}) {
      const env = { ...fakes.env, ...options.env };
      const context = testServiceContext(test.db, { home: home.path, env });
      workers = await startTestWorkers(test.db, {
        dependencies: context,
        maxConcurrentAssistantSessions: options.maxSessions ?? 2,
      });
      app = await startTestCoreApp(test.db, context, workers, {
        maxConcurrent: options.maxSessions ?? 2,
        workflowDefaults: { idleTimeoutMs: 60_000 },
      });
    }

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
      fakes = fakeAssistants();
    });

    afterEach(async () => {
      for (const stream of streams.splice(0)) stream.close();
      await app?.close();
      await workers?.stop();
      await test.dispose();
      for (const repo of repos.splice(0)) repo.cleanup();
      fakes.cleanup();
      home.cleanup();
    });

    const call = jsonClient(() => app.url);

    async function newConversation(body: Record<string, unknown> = {}) {
      const created = await call<{ id: string; platform_conversation_id: string }>(
        'POST',
        '/api/conversations',
        body,
      );
      expect(created.status).to.equal(201);
      const stream = await openSse(`${app.url}/api/stream/${created.body.platform_conversation_id}`, {
        lastEventId: 0,
      });
      streams.push(stream);
      return { ...created.body, stream };
    }

    async function send(
      conversation: { platform_conversation_id: string },
      message: string,
    ): Promise<Accepted> {
      const answer = await call<Accepted>(
        'POST',
        `/api/conversations/${conversation.platform_conversation_id}/message`,
        {
          message,
        },
      );
      expect(answer.status).to.equal(202);
      return answer.body;
    }

    const turnEnd = (stream: SseConnection, messageId: number) =>
      stream.waitFor(
        (frame) =>
          ['turn_completed', 'turn_failed', 'turn_cancelled'].includes(frame.data.type) &&
          frame.data.messageId === messageId,
        60_000,
      );

    async function messages(conversation: { platform_conversation_id: string }): Promise<StoredMessage[]> {
      const page = await call<{ items: StoredMessage[] }>(
        'GET',
        `/api/conversations/${conversation.platform_conversation_id}/messages?limit=500`,
      );
      return page.body.items.reverse();
    }

    const typesOf = (frames: SseFrame[], messageId: number) =>
      frames.filter((frame) => frame.data.messageId === messageId).map((frame) => frame.data.type);

    it('answers a message: 202, then its events on the stream, stored output, and a title', async () => {
      await start();
      const conversation = await newConversation();
      const accepted = await send(
        conversation,
        'Please list the files\n[fake:tool Bash {"command":"ls"}]\n[fake:reply Done listing.]',
      );
      expect(accepted).to.include({ status: 'started', position: 0 });
      const end = await turnEnd(conversation.stream, accepted.message_id);
      expect(end.data.type).to.equal('turn_completed');

      const types = typesOf(conversation.stream.frames, accepted.message_id);
      expect(types[0]).to.equal('message');
      expect(types).to.include.members([
        'turn_started',
        'session',
        'tool_call',
        'tool_result',
        'text',
        'text_done',
      ]);
      expect(types.at(-1)).to.equal('turn_completed');
      const ids = conversation.stream.frames.map((frame) => frame.id!);
      expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));

      const stored = await messages(conversation);
      expect(stored[0]).to.include({ role: 'user', turn_status: 'completed' });
      const replies = stored.filter((message) => message.reply_to_message_id === accepted.message_id);
      expect(replies.map((message) => [message.role, message.metadata.kind])).to.deep.equal([
        ['system', 'session'],
        ['tool', 'tool_call'],
        ['tool', 'tool_result'],
        ['assistant', 'text'],
      ]);
      expect(replies.at(-1)!.content).to.equal('Done listing.');

      const title = await conversation.stream.waitFor((frame) => frame.data.type === 'title');
      expect(title.data.title).to.be.a('string').and.not.equal('');
      const read = await call<{ title: string }>(
        'GET',
        `/api/conversations/${conversation.platform_conversation_id}`,
      );
      expect(read.body.title).to.equal(title.data.title);
    });

    it('takes an assistant model changed through PATCH /api/config/assistants at its next turn, with no restart', async () => {
      await start();
      const conversation = await newConversation();
      const before = await send(conversation, 'first [fake:reply one]');
      await turnEnd(conversation.stream, before.message_id);
      const changed = await call<{ assistants: { claude: { model: string } } }>(
        'PATCH',
        '/api/config/assistants',
        {
          claude: { model: 'claude-from-the-api' },
        },
      );
      expect(changed.status).to.equal(200);
      expect(changed.body.assistants.claude.model).to.equal('claude-from-the-api');
      const after = await send(conversation, 'second [fake:reply two]');
      await turnEnd(conversation.stream, after.message_id);
      // The first turn (and its title) ran with the fake's default model; the second with the new one.
      const models = fakes.invocations().map((entry) => entry.model);
      expect(models.at(-1)).to.equal('claude-from-the-api');
      expect(models.length).to.be.greaterThan(1);
      expect(models.slice(0, -1)).to.not.include('claude-from-the-api');
    });

    it('answers a message retried with the same Idempotency-Key once: one stored message, one turn', async () => {
      await start();
      const conversation = await newConversation();
      const retried = jsonClient(() => app.url, { 'Idempotency-Key': 'message-retry-1' });
      const path = `/api/conversations/${conversation.platform_conversation_id}/message`;
      const first = await retried<Accepted>('POST', path, { message: 'only once [fake:reply done]' });
      const second = await retried<Accepted>('POST', path, { message: 'only once [fake:reply done]' });
      expect(first.status).to.equal(202);
      expect(second).to.deep.equal(first);
      await turnEnd(conversation.stream, first.body.message_id);
      const users = (await messages(conversation)).filter((message) => message.role === 'user');
      expect(users.map((message) => message.id)).to.deep.equal([first.body.message_id]);
      const turns = conversation.stream.frames.filter((frame) => frame.data.type === 'turn_started');
      expect(turns).to.have.length(1);
    });

    it('cancels the running turn on request: the assistant stops, it ends cancelled, the next message is answered', async () => {
      await start();
      const conversation = await newConversation();
      const path = `/api/conversations/${conversation.platform_conversation_id}`;
      expect((await call<Problem>('POST', `${path}/cancel`)).body.code).to.equal('no_turn_running');

      const words = Array.from({ length: 100 }, (_, index) => `w${index}`).join(' ');
      const long = await send(conversation, `[fake:slow 200]\n[fake:reply ${words}]`);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'text' && frame.data.messageId === long.message_id,
        60_000,
      );
      const cancelling = await call<{ message_id: number; status: string }>('POST', `${path}/cancel`);
      expect(cancelling.status).to.equal(202);
      expect(cancelling.body).to.deep.include({ message_id: long.message_id, status: 'cancelling' });
      const end = await conversation.stream.waitFor(
        (frame) =>
          ['turn_completed', 'turn_failed', 'turn_cancelled'].includes(frame.data.type) &&
          frame.data.messageId === long.message_id,
        60_000,
      );
      expect(end.data.type).to.equal('turn_cancelled');
      const next = await send(conversation, 'still there?\n[fake:reply yes]');
      expect((await turnEnd(conversation.stream, next.message_id)).data.type).to.equal('turn_completed');
      const stored = await messages(conversation);
      expect(stored.find((message) => message.id === long.message_id)!.turn_status).to.equal('cancelled');
      // Stopped mid-way: the text so far is kept, not the whole reply.
      const partial = stored.filter(
        (message) => message.reply_to_message_id === long.message_id && message.role === 'assistant',
      );
      expect(partial.map((message) => message.content).join(' ')).to.not.equal(words);
    });

    it("waits out the assistant's usage limit: the stream says until when, and the turn goes on by itself", async () => {
      await start();
      const conversation = await newConversation();
      const key = `limit-${conversation.platform_conversation_id}`;
      const limited = await send(
        conversation,
        `[fake:usage-limit-once ${key} 1]\n[fake:reply after the wait]`,
      );
      const end = await turnEnd(conversation.stream, limited.message_id);
      expect(end.data.type).to.equal('turn_completed');
      const ofTurn = conversation.stream.frames.filter(
        (frame) => frame.data.messageId === limited.message_id,
      );
      const types = ofTurn.map((frame) => frame.data.type).filter((type) => type.startsWith('turn_'));
      expect(types).to.deep.equal(['turn_started', 'turn_waiting', 'turn_started', 'turn_completed']);
      const waiting = ofTurn.find((frame) => frame.data.type === 'turn_waiting')!.data;
      expect(waiting).to.include({ reason: 'usage_limit' });
      expect(Number.isNaN(Date.parse(String(waiting.until))), 'until is a time').to.equal(false);
      expect(String(waiting.error)).to.match(/usage limit/i);
      const stored = await messages(conversation);
      expect(stored.find((message) => message.id === limited.message_id)!.turn_status).to.equal('completed');
      // The refused try left nothing behind: one answer, no error.
      const replies = stored.filter(
        (message) => message.reply_to_message_id === limited.message_id && message.role !== 'system',
      );
      expect(replies.map((message) => [message.role, message.content])).to.deep.equal([
        ['assistant', 'after the wait'],
      ]);
    });

    it('ends a turn waiting out a usage limit when it is cancelled, and answers the next message', async () => {
      await start();
      const conversation = await newConversation();
      const path = `/api/conversations/${conversation.platform_conversation_id}`;
      const key = `long-limit-${conversation.platform_conversation_id}`;
      const limited = await send(conversation, `[fake:usage-limit-once ${key} 600]\n[fake:reply never]`);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'turn_waiting' && frame.data.messageId === limited.message_id,
        60_000,
      );
      const cancelling = await call<{ message_id: number; status: string }>('POST', `${path}/cancel`);
      expect(cancelling.status).to.equal(202);
      expect(cancelling.body).to.deep.include({ message_id: limited.message_id });
      expect((await turnEnd(conversation.stream, limited.message_id)).data.type).to.equal('turn_cancelled');
      const next = await send(conversation, 'still there?\n[fake:reply yes]');
      expect((await turnEnd(conversation.stream, next.message_id)).data.type).to.equal('turn_completed');
    });

    it('answers one message at a time in arrival order and resumes the provider session', async () => {
      await start();
      const conversation = await newConversation();
      const first = await send(
        conversation,
        'first question\n[fake:delay 1500]\n[fake:reply one two three four]',
      );
      const second = await send(conversation, 'second question');
      const third = await send(conversation, 'third\n[fake:recall]');
      expect(second.status).to.equal('queued');
      expect(third.position).to.be.greaterThan(second.position);
      await turnEnd(conversation.stream, third.message_id);

      const order = conversation.stream.frames
        .filter((frame) => ['turn_started', 'turn_completed'].includes(frame.data.type))
        .map((frame) => `${frame.data.type}:${frame.data.messageId}`);
      expect(order).to.deep.equal(
        [first, second, third].flatMap((m) => [
          `turn_started:${m.message_id}`,
          `turn_completed:${m.message_id}`,
        ]),
      );
      const sessions = conversation.stream.frames.filter((frame) => frame.data.type === 'session');
      expect(sessions).to.have.length(1);
      const recall = (await messages(conversation)).filter(
        (message) => message.reply_to_message_id === third.message_id && message.role === 'assistant',
      );
      expect(recall[0]!.content).to.include('first question').and.include('second question');
      // Each turn resumes (a fork of) the session the previous turn ended in.
      const turns = fakes
        .invocations()
        .filter((entry) => !String(entry.prompt).startsWith('Reply with only a short title'));
      expect(turns).to.have.length(3);
      expect(turns[0]!.resume).to.equal(undefined);
      expect(turns[0]!.sessionId).to.equal(sessions[0]!.data.providerSessionId);
      expect(turns[1]!.resume).to.equal(turns[0]!.sessionId);
      expect(turns[2]!.resume).to.equal(turns[1]!.sessionId);
    });

    it('runs at most the configured sessions at once and reports active and queued exactly', async () => {
      await start({ maxSessions: 1 });
      const busy = await newConversation();
      const waiting = await newConversation();
      const slow = await send(busy, '[fake:delay 4000]\n[fake:reply finally]');
      await busy.stream.waitFor((frame) => frame.data.type === 'turn_started');
      const queued = await send(waiting, 'me next');
      expect(queued).to.include({ status: 'queued', position: 1 });
      const figures = await call<{ active: number; queued: number; maxConcurrent: number }>(
        'GET',
        '/health/concurrency',
      );
      expect(figures.body).to.include({ active: 1, queued: 1, maxConcurrent: 1 });
      const health = await call<{ concurrency: object }>('GET', '/api/health');
      expect(health.body.concurrency).to.deep.equal({ active: 1, queued: 1, maxConcurrent: 1 });

      await turnEnd(waiting.stream, queued.message_id);
      const slowEnd = busy.stream.frames.find((frame) => frame.data.type === 'turn_completed');
      const waitingStart = waiting.stream.frames.find((frame) => frame.data.type === 'turn_started');
      expect(slowEnd, 'the busy turn ended first').to.not.equal(undefined);
      expect(slowEnd!.id).to.be.lessThan(waitingStart!.id!);
      expect(slow.status).to.equal('started');
      const after = await call<{ active: number; queued: number }>('GET', '/health/concurrency');
      expect(after.body).to.include({ active: 0, queued: 0 });
    });

    it('fails a turn whose assistant crashes, stores the error, and answers the next message', async () => {
      await start();
      const conversation = await newConversation();
      const crashed = await send(conversation, '[fake:crash the fake fell over]');
      const end = await turnEnd(conversation.stream, crashed.message_id);
      expect(end.data).to.include({ type: 'turn_failed', code: 'process_failed' });
      const next = await send(conversation, 'are you back?');
      expect((await turnEnd(conversation.stream, next.message_id)).data.type).to.equal('turn_completed');
      const stored = await messages(conversation);
      expect(stored.find((m) => m.id === crashed.message_id)!.turn_status).to.equal('failed');
      expect(stored.some((m) => m.role === 'error' && m.reply_to_message_id === crashed.message_id)).to.equal(
        true,
      );
    });

    it('keeps the context of the last good turn when a turn crashes mid-way: the next one resumes it', async () => {
      await start();
      const conversation = await newConversation();
      const good = await send(conversation, 'remember the blue door\n[fake:reply noted]');
      expect((await turnEnd(conversation.stream, good.message_id)).data.type).to.equal('turn_completed');
      const crashed = await send(
        conversation,
        'and now\n[fake:reply half an answer]\n[fake:crash fell over]',
      );
      expect((await turnEnd(conversation.stream, crashed.message_id)).data.type).to.equal('turn_failed');
      const next = await send(conversation, 'what did I ask you to remember?\n[fake:reply the blue door]');
      expect((await turnEnd(conversation.stream, next.message_id)).data.type).to.equal('turn_completed');

      const turns = fakes.invocations();
      const goodTurn = turns.find((entry) => String(entry.prompt).startsWith('remember the blue door'))!;
      const crashedTurn = turns.find((entry) => String(entry.prompt).startsWith('and now'))!;
      const nextTurn = turns.find((entry) => String(entry.prompt).startsWith('what did I ask'))!;
      expect(crashedTurn.resume).to.equal(goodTurn.sessionId);
      // Not a fresh session: the session the good turn ended in, not the crashed turn's.
      expect(nextTurn.resume).to.equal(goodTurn.sessionId);
    });

    it('cancels the turns running in a codebase before deleting it, so none works in a removed folder', async () => {
      await start();
      const repo = makeTempRepo({ files: { 'README.md': '# app\n' } });
      repos.push(repo);
      const registered = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      const conversation = await newConversation({ codebase_id: registered.body.id });
      const words = Array.from({ length: 200 }, (_, index) => `w${index}`).join(' ');
      const long = await send(conversation, `[fake:slow 200]\n[fake:reply ${words}]`);
      await conversation.stream.waitFor(
        (frame) => frame.data.type === 'text' && frame.data.messageId === long.message_id,
        60_000,
      );
      const cwd = fakes.invocations().find((entry) => String(entry.cwd).includes('worktrees'))!.cwd as string;
      expect(existsSync(cwd)).to.equal(true);

      const deleted = await call<{ cancelledTurns: number; removedWorktrees: number }>(
        'DELETE',
        `/api/codebases/${registered.body.id}`,
      );
      expect(deleted.status).to.equal(200);
      expect(deleted.body).to.include({ cancelledTurns: 1, removedWorktrees: 1 });
      // The turn had ended, cancelled, before its folder went.
      const end = conversation.stream.frames.find(
        (frame) =>
          frame.data.messageId === long.message_id &&
          String(frame.data.type).startsWith('turn_') &&
          frame.data.type !== 'turn_started',
      );
      expect(end?.data.type).to.equal('turn_cancelled');
      expect(existsSync(cwd)).to.equal(false);
    });

    it('runs a codebase conversation in its own worktree, and refuses to spawn when env keys appear', async () => {
      await start();
      const repo = makeTempRepo({ files: { 'README.md': '# app\n' } });
      repos.push(repo);
      const registered = await call<{ id: string }>('POST', '/api/codebases', { path: repo.path });
      expect(registered.status).to.equal(201);
      const conversation = await newConversation({ codebase_id: registered.body.id });
      const first = await send(conversation, 'where am I?');
      expect((await turnEnd(conversation.stream, first.message_id)).data.type).to.equal('turn_completed');
      const cwd = fakes.invocations().at(-1)!.cwd as string;
      expect(cwd).to.include(join('worktrees', 'thread-'));
      expect(git(cwd, 'rev-parse', '--abbrev-ref', 'HEAD')).to.match(/^cairn\/thread-/);

      writeFileSync(join(cwd, '.env'), 'ANTHROPIC_API_KEY=sk-ant-not-for-the-assistant\n');
      const blocked = await send(conversation, 'and now?');
      const end = await turnEnd(conversation.stream, blocked.message_id);
      expect(end.data).to.include({ type: 'turn_failed', code: 'env_leak_detected' });
      expect(JSON.stringify(end.data)).to.include('ANTHROPIC_API_KEY').and.not.include('sk-ant-not-for');
      expect(fakes.invocations()).to.have.length(2); // the turn and the title; none after the leak
    });

    it('uses Codex when DEFAULT_AI_ASSISTANT says so', async () => {
      await start({ env: { DEFAULT_AI_ASSISTANT: 'codex' } });
      const conversation = await newConversation();
      const accepted = await send(conversation, '[fake:reply codex here]');
      await turnEnd(conversation.stream, accepted.message_id);
      const started = conversation.stream.frames.find((frame) => frame.data.type === 'turn_started');
      expect(started!.data.assistant).to.equal('codex');
      const stored = await messages(conversation);
      expect(stored.some((m) => m.role === 'assistant' && m.content === 'codex here')).to.equal(true);
    });

    it('continues as new after its turns per run, keeping the queue', async () => {
      await start();
      await app.close();
      const context = testServiceContext(test.db, { home: home.path, env: fakes.env });
      app = await startTestCoreApp(test.db, context, workers, { workflowDefaults: { turnsPerRun: 2 } });
      const conversation = await newConversation();
      const sent = [];
      for (const text of ['one', 'two', 'three', 'four']) sent.push(await send(conversation, text));
      for (const accepted of sent) {
        expect((await turnEnd(conversation.stream, accepted.message_id)).data.type).to.equal(
          'turn_completed',
        );
      }
      const handle = workers.temporal.client.workflow.getHandle(conversationWorkflowId(conversation.id));
      const description = await handle.describe();
      expect(description.status.name).to.equal('RUNNING');
      expect(description.runId).to.not.equal(description.raw.workflowExecutionInfo?.firstRunId);
      await handle.terminate('test over');
    });

    it('answers messages whose signal never arrived: the sweep starts or wakes their workflow', async () => {
      await start();
      const sweep = () =>
        sweepOpenTurns({
          client: workers.temporal.client,
          taskQueue: workers.taskQueue,
          db: test.db,
          logger: testServiceContext(test.db, { home: home.path }).logger,
          wakeAfterMs: 0,
        });
      // Stored as the API stores them, but never signalled.
      const storeUnsignalled = (conversationId: string, content: string) =>
        appendMessage(test.db.knex, { conversationId, role: 'user', content, turnStatus: 'queued' });
      const lonely = await newConversation();
      const stored = await storeUnsignalled(lonely.id, 'anyone there?');
      expect(await sweep()).to.equal(1);
      expect((await turnEnd(lonely.stream, stored.id)).data.type).to.equal('turn_completed');

      // The workflow is running and idle; a message lands without its signal.
      const missed = await storeUnsignalled(lonely.id, 'and again?');
      expect(await sweep()).to.equal(1);
      expect((await turnEnd(lonely.stream, missed.id)).data.type).to.equal('turn_completed');
      expect(await sweep()).to.equal(0);
    });

    it('fails a turn whose assistant sends nothing in time, saying so', async () => {
      await start({ env: { CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS: '500' } });
      const conversation = await newConversation({ title: 'no title generation' });
      const hung = await send(conversation, '[fake:hang]');
      const end = await turnEnd(conversation.stream, hung.message_id);
      expect(end.data).to.include({ type: 'turn_failed', code: 'first_event_timeout' });
      const stored = await messages(conversation);
      const error = stored.find((m) => m.role === 'error' && m.reply_to_message_id === hung.message_id);
      expect(error!.metadata.code).to.equal('first_event_timeout');
    });

    it('ends an idle conversation workflow, and the next message starts it again', async () => {
      await start();
      await app.close();
      const context = testServiceContext(test.db, { home: home.path, env: fakes.env });
      app = await startTestCoreApp(test.db, context, workers, { workflowDefaults: { idleTimeoutMs: 300 } });
      const conversation = await newConversation();
      const first = await send(conversation, 'hello');
      await turnEnd(conversation.stream, first.message_id);
      const handle = workers.temporal.client.workflow.getHandle(conversationWorkflowId(conversation.id));
      await handle.result();
      const second = await send(conversation, 'hello again');
      expect((await turnEnd(conversation.stream, second.message_id)).data.type).to.equal('turn_completed');
    });
  });
}
