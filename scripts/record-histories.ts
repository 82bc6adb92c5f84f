// Records the event histories replayed by test/integration/temporal/replay.test.ts. Run it after
// adding a workflow worth guarding (npm run histories) and commit the JSON files: a later change
// that would break in-flight executions then fails CI until it uses patched() or a new name.
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { WorkflowHandle } from '@temporalio/client';
import { databaseKinds } from '../test/support/databases.js';
import { makeBareRemote, makeTempRepo } from '../test/support/git-repos.js';
import { stopTestTemporal, withTestWorkers } from '../test/support/temporal.js';
import { fakeAssistants } from '../test/support/fake-assistants.js';
import { testServiceContext } from '../test/support/service-context.js';
import { makeTempDir } from '../test/support/temp-dirs.js';
import { createConversation } from '../db/repositories/conversations.js';
import { appendMessage } from '../db/repositories/messages.js';
import { CONVERSATION_WORKFLOW_TYPE } from '../domain/conversations/conversation-workflow.js';
import { messageSignal } from '../workflows/conversations/conversation-messages.js';
import { approveSignal } from '../workflows/runs/run-messages.js';

import { createRun, findRun, transitionRun } from '../db/repositories/workflow-runs.js';
import { RUN_WORKFLOW_TYPE } from '../domain/runs/run-contract.js';
import { runQueueFor } from '../domain/task-queues.js';

/** A run with a retried bash node, an approval gate and an assistant node. */
const REPRESENTATIVE_RUN = {
  name: 'history-run',
  nodes: [
    {
      id: 'flaky',
      bash: 'test -f "$ARTIFACTS_DIR/seen" || { touch "$ARTIFACTS_DIR/seen"; exit 1; }\necho ready',
      retry: { attempts: 2, delay: '1s' },
    },
    {
      id: 'gate',
      depends_on: ['flaky'],
      approval: { message: 'Go on? $flaky.output', capture_response: true },
    },
    { id: 'answer', depends_on: ['gate'], prompt: '[fake:reply done: $gate.output]' },
  ],
};

/** A run with a script node, a loop that continues its session, and a cancel node reached. */
const LANGUAGE_RUN = {
  name: 'history-language',
  nodes: [
    {
      id: 'classify',
      runtime: 'node',
      script: 'console.log(JSON.stringify({ words: process.env.ARGUMENTS.split(" ").length }))',
      output_format: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] },
    },
    {
      id: 'count',
      depends_on: ['classify'],
      loop: {
        prompt: '[fake:counter history-$RUN_ID]\nafter $LOOP_PREV_OUTPUT',
        until_condition: '$count.output >= 2',
        until_bash: 'test "$COUNT_OUTPUT" -ge 5',
        max_iterations: 3,
      },
    },
    {
      id: 'stop',
      depends_on: ['count'],
      when: '$classify.output.words > 1',
      cancel: 'stopped after $count.output iterations',
    },
    { id: 'never', depends_on: ['stop'], bash: 'echo never' },
  ],
};

/** A run whose assistant turn hits the usage limit, waits it out, then goes on. */
const USAGE_LIMIT_RUN = {
  name: 'history-usage-limit',
  nodes: [{ id: 'ask', prompt: '[fake:usage-limit-once history-$RUN_ID 1]\n[fake:reply after the limit]' }],
};

/** A run that spends its budget after its first node and is approved to spend as much again. */
const BUDGET_RUN = {
  name: 'history-budget',
  max_cost_usd: 0.00001,
  nodes: [
    { id: 'a', prompt: '[fake:reply one]' },
    { id: 'b', depends_on: ['a'], prompt: '[fake:reply two]' },
  ],
};

const historyDir = new URL('../test/history_files/', import.meta.url);

async function save(name: string, handle: WorkflowHandle): Promise<void> {
  await handle.result();
  const history = await handle.fetchHistory();
  writeFileSync(
    new URL(name, historyDir),
    `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`,
  );
  console.log(`recorded ${name} (${history.events?.length ?? 0} events)`);
}

const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

const database = await databaseKinds()[0]!.create();
const source = makeTempRepo();
const remote = makeBareRemote(source.path);
const fakes = fakeAssistants();
const home = makeTempDir('cairn-history-home-');
const dependencies = testServiceContext(database.db, { home: home.path, env: fakes.env });
try {
  await withTestWorkers(
    database.db,
    async ({ temporal, taskQueue }) => {
      const start = (workflow: string, workflowId: string, args: unknown[] = [], queue = taskQueue) =>
        temporal.client.workflow.start(workflow, { taskQueue: queue, workflowId, args });
      if (wanted('system-check.json'))
        await save('system-check.json', await start('systemCheck', 'history-system-check'));
      if (wanted('codebase-registration.json')) {
        const input = { url: remote.url, allowEnvKeys: false };
        await save(
          'codebase-registration.json',
          await start('codebaseRegistration', 'history-registration', [input]),
        );
      }
      if (wanted('cleanup-pass.json'))
        await save('cleanup-pass.json', await start('cleanupPass', 'history-cleanup'));
      if (wanted('conversation.json')) {
        // Two turns (one failing), a title, a signal for a turn already answered, then the idle end.
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const ask = (content: string) =>
          appendMessage(knex, {
            conversationId: conversation.id,
            role: 'user',
            content,
            turnStatus: 'queued',
          });
        const first = await ask('hello\n[fake:reply hi there]');
        const second = await ask('[fake:crash on purpose]');
        const handle = await temporal.client.workflow.signalWithStart(CONVERSATION_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: 'history-conversation',
          args: [{ conversationId: conversation.id, idleTimeoutMs: 1_000 }],
          signal: messageSignal,
          signalArgs: [{ messageId: first.id }],
        });
        await handle.signal(messageSignal, { messageId: second.id });
        await handle.signal(messageSignal, { messageId: first.id });
        await save('conversation.json', handle);
      }
      if (wanted('workflow-run.json')) {
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const run = await createRun(knex, {
          workflowName: REPRESENTATIVE_RUN.name,
          definition: REPRESENTATIVE_RUN,
          message: 'record me',
          conversationId: conversation.id,
        });
        const handle = await start(
          RUN_WORKFLOW_TYPE,
          'history-run',
          [{ runId: run.id }],
          runQueueFor(taskQueue),
        );
        while ((await findRun(knex, run.id))?.status !== 'paused')
          await new Promise((r) => setTimeout(r, 100));
        // As the API does: the state changes first, then the signal.
        await transitionRun(knex, run.id, ['paused'], 'running');
        await handle.signal(approveSignal, { actor: 'recorder', comment: 'looks right' });
        await save('workflow-run.json', handle);
      }
      if (wanted('workflow-run-language.json')) {
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const run = await createRun(knex, {
          workflowName: LANGUAGE_RUN.name,
          definition: LANGUAGE_RUN,
          message: 'record the language',
          conversationId: conversation.id,
        });
        const handle = await start(
          RUN_WORKFLOW_TYPE,
          'history-language-run',
          [{ runId: run.id }],
          runQueueFor(taskQueue),
        );
        await save('workflow-run-language.json', handle);
      }
      if (wanted('workflow-run-usage-limit.json')) {
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const run = await createRun(knex, {
          workflowName: USAGE_LIMIT_RUN.name,
          definition: USAGE_LIMIT_RUN,
          message: 'record the wait',
          conversationId: conversation.id,
        });
        const handle = await start(
          RUN_WORKFLOW_TYPE,
          'history-usage-limit-run',
          [{ runId: run.id }],
          runQueueFor(taskQueue),
        );
        await save('workflow-run-usage-limit.json', handle);
      }
      if (wanted('workflow-run-budget.json')) {
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const run = await createRun(knex, {
          workflowName: BUDGET_RUN.name,
          definition: BUDGET_RUN,
          message: 'record the budget',
          conversationId: conversation.id,
        });
        const handle = await start(
          RUN_WORKFLOW_TYPE,
          'history-budget-run',
          [{ runId: run.id }],
          runQueueFor(taskQueue),
        );
        while ((await findRun(knex, run.id))?.status !== 'paused')
          await new Promise((r) => setTimeout(r, 100));
        await transitionRun(knex, run.id, ['paused'], 'running');
        await handle.signal(approveSignal, { actor: 'recorder', comment: 'spend more' });
        await save('workflow-run-budget.json', handle);
      }
    },
    { dependencies },
  );
} finally {
  await database.dispose();
  source.cleanup();
  remote.cleanup();
  fakes.cleanup();
  home.cleanup();
  await stopTestTemporal();
}
