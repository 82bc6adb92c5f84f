import { expect } from 'chai';
import { conversationWorkflowId } from '../../domain/conversations/conversation-workflow.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { isAlive, readPid } from '../support/processes.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { join } from 'node:path';
import { openSse } from '../support/sse-client.js';
import { startWorkerProcess, type WorkerProcessSetup } from '../support/worker-process.js';

describe('a worker killed in the middle of a turn', function () {
  this.timeout(5 * 60_000);

  it('answers the message exactly once after another worker takes over', async () => {
    const fakes = fakeAssistants();
    let setup: WorkerProcessSetup | undefined;
    let conversationId: string | undefined;
    try {
      setup = await startWorkerProcess(fakes.env, {
        workflowDefaults: { turnHeartbeatTimeoutMs: 2_000, idleTimeoutMs: 2_000 },
      });
      const { app } = setup;
      const created = await fetch(`${app.url}/api/conversations`, { method: 'POST' });
      const conversation = (await created.json()) as { id: string; platform_conversation_id: string };
      conversationId = conversation.id;
      const stream = await openSse(`${app.url}/api/stream/${conversation.platform_conversation_id}`, {
        lastEventId: 0,
      });
      const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
      const posted = await fetch(
        `${app.url}/api/conversations/${conversation.platform_conversation_id}/message`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ message: `[fake:slow 150]\n[fake:reply ${words}]` }),
        },
      );
      const { message_id: messageId } = (await posted.json()) as { message_id: number };

      await stream.waitFor(
        (frame) => frame.data.type === 'text' && frame.data.messageId === messageId,
        60_000,
      );
      await setup.killAndReplaceWorker();

      const end = await stream.waitFor(
        (frame) =>
          ['turn_completed', 'turn_failed'].includes(frame.data.type) && frame.data.messageId === messageId,
        120_000,
      );
      expect(end.data.type).to.equal('turn_completed');
      const starts = stream.frames.filter((frame) => frame.data.type === 'turn_started');
      expect(starts.map((frame) => frame.data.restarted)).to.deep.equal([false, true]);

      const page = (await (
        await fetch(`${app.url}/api/conversations/${conversation.platform_conversation_id}/messages`)
      ).json()) as {
        items: Array<{
          id: number;
          role: string;
          content: string;
          turn_status: string | null;
          reply_to_message_id: number | null;
        }>;
      };
      const answers = page.items.filter((m) => m.role === 'assistant' && m.reply_to_message_id === messageId);
      expect(answers.map((m) => m.content)).to.deep.equal([words]);
      expect(page.items.find((m) => m.id === messageId)!.turn_status).to.equal('completed');
      stream.close();
    } finally {
      await setup?.close(conversationId && conversationWorkflowId(conversationId));
      fakes.cleanup();
    }
  });

  it("kills what the dead attempt's assistant started before the retry starts its own", async () => {
    const fakes = fakeAssistants();
    const pids = makeTempDir('cairn-child-pid-');
    const childPidFile = join(pids.path, 'child.pid');
    let setup: WorkerProcessSetup | undefined;
    let conversationId: string | undefined;
    try {
      setup = await startWorkerProcess(
        { ...fakes.env, FAKE_ASSISTANT_CHILD_PID_FILE: childPidFile },
        { workflowDefaults: { turnHeartbeatTimeoutMs: 2_000, idleTimeoutMs: 2_000 } },
      );
      const { app } = setup;
      const created = await fetch(`${app.url}/api/conversations`, { method: 'POST' });
      const conversation = (await created.json()) as { id: string; platform_conversation_id: string };
      conversationId = conversation.id;
      const stream = await openSse(`${app.url}/api/stream/${conversation.platform_conversation_id}`, {
        lastEventId: 0,
      });
      // The assistant starts a long helper (as a tool would) and waits.
      await fetch(`${app.url}/api/conversations/${conversation.platform_conversation_id}/message`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: '[fake:spawn-child]' }),
      });
      const deadline = Date.now() + 60_000;
      let helper: number | undefined;
      while ((helper = readPid(childPidFile)) === undefined) {
        if (Date.now() > deadline) throw new Error('the assistant started no helper');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(isAlive(helper)).to.equal(true);

      await setup.killAndReplaceWorker();
      await stream.waitFor(
        (frame) => frame.data.type === 'turn_started' && frame.data.restarted === true,
        60_000,
      );
      expect(isAlive(helper), "the dead attempt's helper still running").to.equal(false);
      stream.close();
    } finally {
      await setup?.close(conversationId && conversationWorkflowId(conversationId));
      fakes.cleanup();
      const last = readPid(childPidFile);
      if (last !== undefined && isAlive(last)) process.kill(last, 'SIGKILL');
      pids.cleanup();
    }
  });
});
