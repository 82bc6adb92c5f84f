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
import {
  SCHEDULED_RUN_WORKFLOW_TYPE,
  workflowScheduleId,
  type ScheduledRunInput,
} from '../domain/runs/schedule-contract.js';

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

/** A for_each bash node (two at a time, one element failing its first try), then one of assistant turns. */
const FAN_OUT_RUN = {
  name: 'history-fan-out',
  nodes: [
    { id: 'list', bash: 'echo \'["a", "b", "c"]\'' },
    {
      id: 'each',
      depends_on: ['list'],
      for_each: '$list.output',
      concurrency: 2,
      retry: { attempts: 2, delay: '1s' },
      bash: 'if [ "$ITEM" = b ] && [ ! -f "$ARTIFACTS_DIR/seen" ]; then touch "$ARTIFACTS_DIR/seen"; exit 1; fi\necho "got $ITEM"',
    },
    { id: 'ask', depends_on: ['each'], for_each: '$each.output', prompt: '[fake:reply $ITEM_INDEX: $ITEM]' },
  ],
};

/** A sub-workflow node running the bundled assist workflow as a child run, then a node reading its output. */
const SUB_WORKFLOW_RUN = {
  name: 'history-sub-workflow',
  nodes: [
    { id: 'call', workflow: 'assist', message: '[fake:reply helped]' },
    { id: 'after', depends_on: ['call'], bash: 'echo "the child said $CALL_OUTPUT"' },
  ],
};

/** A scheduled workflow in the recorded repository: a firing stores its run and awaits it. */
const SCHEDULED_WORKFLOW = `name: history-scheduled
schedule:
  cron: "0 3 * * *"
  message: recorded firing
nodes:
  - id: tidy
    bash: |
      echo "tidied: $ARGUMENTS"
`;

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
const source = makeTempRepo({
  files: { 'README.md': '# recorded\n', '.cairn/workflows/history-scheduled.yaml': SCHEDULED_WORKFLOW },
});
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
      /** A run of `definition` on a new conversation, as the API starts one. */
      const startRun = async (definition: { name: string }, workflowId: string, message: string) => {
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const run = await createRun(knex, {
          workflowName: definition.name,
          definition,
          message,
          conversationId: conversation.id,
        });
        const handle = await start(
          RUN_WORKFLOW_TYPE,
          workflowId,
          [{ runId: run.id }],
          runQueueFor(taskQueue),
        );
        return { runId: run.id, handle };
      };
      /** Waits for the run's gate, then approves it as the API does: the state changes first, then the signal. */
      const approveWhenPaused = async (runId: string, handle: WorkflowHandle, comment: string) => {
        const { knex } = database.db;
        while ((await findRun(knex, runId))?.status !== 'paused')
          await new Promise((r) => setTimeout(r, 100));
        await transitionRun(knex, runId, ['paused'], 'running');
        await handle.signal(approveSignal, { actor: 'recorder', comment });
      };
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
      if (wanted('conversation-usage-limit.json')) {
        // A turn refused for the usage limit: it waits for the reset, then is answered.
        const { knex } = database.db;
        const conversation = await createConversation(knex, { platform: 'web' });
        const limited = await appendMessage(knex, {
          conversationId: conversation.id,
          role: 'user',
          content: '[fake:usage-limit-once history-conversation 1]\n[fake:reply after the limit]',
          turnStatus: 'queued',
        });
        const handle = await temporal.client.workflow.signalWithStart(CONVERSATION_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: 'history-conversation-usage-limit',
          args: [{ conversationId: conversation.id, idleTimeoutMs: 1_000, needsTitle: false }],
          signal: messageSignal,
          signalArgs: [{ messageId: limited.id }],
        });
        await save('conversation-usage-limit.json', handle);
      }
      if (wanted('workflow-run.json')) {
        const { runId, handle } = await startRun(REPRESENTATIVE_RUN, 'history-run', 'record me');
        await approveWhenPaused(runId, handle, 'looks right');
        await save('workflow-run.json', handle);
      }
      if (wanted('workflow-run-language.json')) {
        const { handle } = await startRun(LANGUAGE_RUN, 'history-language-run', 'record the language');
        await save('workflow-run-language.json', handle);
      }
      if (wanted('workflow-run-usage-limit.json')) {
        const { handle } = await startRun(USAGE_LIMIT_RUN, 'history-usage-limit-run', 'record the wait');
        await save('workflow-run-usage-limit.json', handle);
      }
      if (wanted('workflow-run-budget.json')) {
        const { runId, handle } = await startRun(BUDGET_RUN, 'history-budget-run', 'record the budget');
        await approveWhenPaused(runId, handle, 'spend more');
        await save('workflow-run-budget.json', handle);
      }
      if (wanted('workflow-run-sub-workflow.json')) {
        const { handle } = await startRun(SUB_WORKFLOW_RUN, 'history-sub-workflow-run', 'record the child');
        await save('workflow-run-sub-workflow.json', handle);
      }
      if (wanted('scheduled-run.json')) {
        // The codebase is registered (as the registration history does) before its schedule fires.
        const registration = await start('codebaseRegistration', 'history-registration-for-schedule', [
          { url: remote.url, allowEnvKeys: false },
        ]);
        const outcome = (await registration.result()) as { codebase: { id: string } };
        const codebaseId = outcome.codebase.id;
        const input: ScheduledRunInput = {
          scheduleId: workflowScheduleId(codebaseId, 'history-scheduled'),
          codebaseId,
          workflowName: 'history-scheduled',
        };
        await save(
          'scheduled-run.json',
          await start(SCHEDULED_RUN_WORKFLOW_TYPE, 'history-scheduled-run', [input]),
        );
      }
      if (wanted('workflow-run-fan-out.json')) {
        const { handle } = await startRun(FAN_OUT_RUN, 'history-fan-out-run', 'record the fan-out');
        await save('workflow-run-fan-out.json', handle);
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
