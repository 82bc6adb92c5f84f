import { expect } from 'chai';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../db/connection.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import { conversationWorkflowId } from '../../domain/conversations/conversation-workflow.js';
import { spawnCairn, waitForOutput, type CairnProcess } from '../support/cairn-process.js';
import { startTestCoreApp, type TestCoreApp } from '../support/core-app.js';
import { fakeAssistants } from '../support/fake-assistants.js';
import { openSse } from '../support/sse-client.js';
import { testServiceContext } from '../support/service-context.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

describe('a worker killed in the middle of a turn', function () {
  this.timeout(5 * 60_000);

  it('answers the message exactly once after another worker takes over', async () => {
    const temporal = await testTemporal();
    const home = makeTempHome();
    const cwd = makeTempDir();
    const fakes = fakeAssistants();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...fakes.env,
      CAIRN_HOME: home.home,
      TEMPORAL_ADDRESS: temporal.endpoint.address,
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    const startWorker = async () => {
      const worker = spawnCairn(['worker'], { env, cwd: cwd.path });
      await waitForOutput(worker, 'worker ready', 120_000);
      return worker;
    };
    let worker: CairnProcess | undefined;
    let db: Database | undefined;
    let app: TestCoreApp | undefined;
    let conversationId: string | undefined;
    try {
      worker = await startWorker();
      db = openDatabase({ sqliteFile: join(home.home, 'cairn.db') });
      const context = testServiceContext(db, { home: home.home, env: fakes.env });
      app = await startTestCoreApp(
        db,
        context,
        { temporal, taskQueue: DEFAULT_TASK_QUEUE },
        {
          workflowDefaults: { turnHeartbeatTimeoutMs: 2_000, idleTimeoutMs: 2_000 },
        },
      );
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
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = await startWorker();

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
      if (conversationId) {
        await temporal.client.workflow
          .getHandle(conversationWorkflowId(conversationId))
          .terminate('test over')
          .catch(() => undefined);
      }
      await app?.close();
      await worker?.stop('SIGTERM');
      await db?.close();
      fakes.cleanup();
      home.cleanup();
      cwd.cleanup();
    }
  });
});
