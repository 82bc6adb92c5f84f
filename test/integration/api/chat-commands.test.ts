import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import { startLiveCore, type LiveCore } from '../../support/live-core.js';
import { openSse, type SseConnection } from '../../support/sse-client.js';
import { jsonClient } from '../../support/json-client.js';
import { waitForRunEnd } from '../../support/run-helpers.js';

interface Reply {
  command: string;
  ok: boolean;
  text: string;
  runId?: string;
  conversation?: { id: string; platformConversationId: string; codebaseId: string | null };
}

const GATED = `name: gated
description: |
  waits for a person
  (second line)
nodes:
  - id: gate
    approval:
      message: Go ahead?
  - id: after
    depends_on: [gate]
    bash: echo "approved with $GATE_OUTPUT"
`;

const SLOW = `name: slow
nodes:
  - id: wait
    bash: sleep 120
`;

const TEMPORAL_UI = 'https://temporal.example.test/';

for (const kind of databaseKinds()) {
  describe(`chat commands over the API (${kind.name})`, function () {
    this.timeout(120_000);
    let core: LiveCore;
    let codebaseId: string;
    const streams: SseConnection[] = [];

    before(async () => {
      core = await startLiveCore(
        kind,
        {
          'README.md': '# app\n',
          '.cairn/workflows/gated.yaml': GATED,
          '.cairn/workflows/slow.yaml': SLOW,
        },
        { env: { TEMPORAL_UI_URL: TEMPORAL_UI } },
      );
      const registered = await call<{ id: string }>('POST', '/api/codebases', {
        path: core.repo.path,
        name: 'shop',
      });
      codebaseId = registered.body.id;
    });

    after(async () => {
      for (const stream of streams.splice(0)) stream.close();
      await core.close();
    });

    const call = jsonClient(() => core.app.url, { 'X-Forwarded-User': 'mara' });

    async function conversation(body: Record<string, unknown> = { codebase_id: codebaseId }) {
      const created = await call<{ platform_conversation_id: string }>('POST', '/api/conversations', body);
      const id = created.body.platform_conversation_id;
      const stream = await openSse(`${core.app.url}/api/stream/${id}`, { lastEventId: 0 });
      streams.push(stream);
      return { id, stream };
    }

    async function command(conversationId: string, text: string): Promise<Reply> {
      const answer = await call<Reply>('POST', `/api/conversations/${conversationId}/command`, { text });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body;
    }

    it('answers help, unknown and misused commands, and refuses text that is no command', async () => {
      const { id } = await conversation();
      const help = await command(id, '/help');
      expect(help).to.include({ command: 'help', ok: true });
      expect(help.text).to.include('/workflow run <name> [message]');
      const unknown = await command(id, '/deploy now');
      expect(unknown).to.include({ command: 'unknown', ok: false });
      expect(unknown.text)
        .to.match(/^Unknown command \/deploy\./)
        .and.include('/status');
      const misused = await command(id, '/reject');
      expect(misused).to.deep.equal({
        command: 'reject',
        ok: false,
        text: '`/reject` needs the reason. Usage: `/reject [run id] <reason>`',
      });
      const notCommand = await call<{ code: string; errors: { path: string }[] }>(
        'POST',
        `/api/conversations/${id}/command`,
        { text: '/usr/bin is full' },
      );
      expect(notCommand.status).to.equal(400);
      expect(notCommand.body.code).to.equal('not_a_command');
      expect(notCommand.body.errors[0]!.path).to.equal('/body/text');
      const missing = await call('POST', '/api/conversations/no-such-thing/command', { text: '/help' });
      expect(missing.status).to.equal(404);
    });

    it('lists workflows, runs one, shows it in /status, and approves its gate with /approve', async () => {
      const { id, stream } = await conversation();
      const list = await command(id, '/workflow list');
      expect(list.text).to.include('- `gated` — waits for a person\n');
      const started = await command(id, '/workflow run gated ship the thing');
      expect(started).to.include({ command: 'workflow run', ok: true });
      const runId = started.runId!;
      await stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === runId,
        60_000,
      );
      const status = await command(id, '/status');
      expect(status.text)
        .to.include('Codebase: **shop**')
        .and.include(
          `\`${runId}\` gated: **paused** at \`gate\` ([Temporal](https://temporal.example.test/namespaces/default/workflows/run-${runId}))`,
        );
      // The same link as the conversation's in the API.
      const shown = await call<{ temporalUrl: string }>('GET', `/api/conversations/${id}`);
      expect(shown.body.temporalUrl).to.match(
        /^https:\/\/temporal\.example\.test\/namespaces\/default\/workflows\/conversation-/,
      );
      expect(status.text).to.include(`This conversation in Temporal: ${shown.body.temporalUrl}`);
      const approved = await command(id, '/approve fine by me');
      expect(approved).to.deep.equal({
        command: 'approve',
        ok: true,
        text: `Approved run \`${runId}\` (gated).`,
        runId,
      });
      const end = await waitForRunEnd(stream, runId, 60_000);
      expect(end.data.type).to.equal('run_completed');
      const detail = await call<{
        events: { type: string; actor: string | null; payload: Record<string, unknown> }[];
      }>('GET', `/api/workflows/runs/${runId}`);
      const decision = detail.body.events.find((event) => event.type === 'approval_received')!;
      expect(decision.actor).to.equal('mara');
      expect(decision.payload).to.include({ decision: 'approve', comment: 'fine by me' });
      expect((await command(id, '/approve')).text).to.equal(
        'No run of this conversation is waiting for approval.',
      );
      expect((await command(id, '/workflow run nope')).text).to.equal('No workflow named nope.');
    });

    it("never decides another conversation's gate; /reject cancels the run with the reason", async () => {
      const mine = await conversation();
      const theirs = await conversation();
      const started = await command(theirs.id, '/workflow run gated');
      const runId = started.runId!;
      await theirs.stream.waitFor(
        (frame) => frame.data.type === 'approval_requested' && frame.data.runId === runId,
        60_000,
      );
      const refused = await command(mine.id, `/approve ${runId}`);
      expect(refused).to.deep.equal({
        command: 'approve',
        ok: false,
        text: `No run ${runId} in this conversation.`,
      });
      expect((await command(mine.id, '/reject too risky')).ok).to.equal(false);
      const rejected = await command(theirs.id, `/reject ${runId} too risky`);
      expect(rejected.text).to.equal(`Rejected run \`${runId}\` (gated): it is cancelled.`);
      const end = await waitForRunEnd(theirs.stream, runId, 60_000);
      expect(end.data).to.include({ type: 'run_cancelled', reason: 'rejected: too risky' });
    });

    it('/cancel stops the running turn and the runs started here', async () => {
      const { id, stream } = await conversation();
      const run = (await command(id, '/workflow run slow')).runId!;
      await stream.waitFor((frame) => frame.data.type === 'node_started' && frame.data.runId === run, 60_000);
      const sent = await call<{ message_id: number }>('POST', `/api/conversations/${id}/message`, {
        message: `[fake:slow 200]\n[fake:reply ${'word '.repeat(100)}]`,
      });
      await stream.waitFor(
        (frame) => frame.data.type === 'text' && frame.data.messageId === sent.body.message_id,
        60_000,
      );
      const cancelled = await command(id, '/cancel');
      expect(cancelled.ok).to.equal(true);
      expect(cancelled.text).to.equal(`Cancelling the running turn.\nCancelled run \`${run}\` (slow).`);
      await stream.waitFor(
        (frame) => frame.data.type === 'turn_cancelled' && frame.data.messageId === sent.body.message_id,
        60_000,
      );
      expect((await waitForRunEnd(stream, run, 60_000)).data.type).to.equal('run_cancelled');
      expect(await command(id, '/cancel')).to.deep.equal({
        command: 'cancel',
        ok: false,
        text: 'Nothing is running here.',
      });
    });

    it('/new and /codebase move to a fresh conversation; a local path is refused', async () => {
      const bare = await conversation({});
      expect((await command(bare.id, '/codebase')).text).to.equal(
        'No codebase: `/codebase <name or url>` chooses one.',
      );
      const chosen = await command(bare.id, '/codebase SHOP');
      expect(chosen).to.include({
        command: 'codebase',
        ok: true,
        text: 'Started a new conversation on **shop**.',
      });
      expect(chosen.conversation!.codebaseId).to.equal(codebaseId);
      const moved = chosen.conversation!.platformConversationId;
      expect((await command(moved, '/codebase')).text).to.equal(`Codebase: **shop** (\`${codebaseId}\`).`);
      expect((await command(moved, '/codebase shop')).text).to.equal('Already on **shop**.');
      const fresh = await command(moved, '/new');
      expect(fresh.conversation!.codebaseId).to.equal(codebaseId);
      expect(fresh.conversation!.platformConversationId).to.not.equal(moved);
      const path = await command(moved, `/codebase ${core.repo.path}`);
      expect(path.ok).to.equal(false);
      expect(path.text).to.match(/^A local path cannot be registered from here/);
      expect((await command(moved, '/codebase nothing-like-it')).text).to.equal(
        'No codebase named nothing-like-it.',
      );
      const listed = await call<unknown[]>('GET', '/api/codebases');
      expect(listed.body).to.have.length(1);
    });
  });
}
