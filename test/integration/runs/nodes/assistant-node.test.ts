import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'chai';
import type { ServiceContext } from '../../../../services/context.js';
import { createCodebase } from '../../../../db/repositories/codebases.js';
import { createConversation } from '../../../../db/repositories/conversations.js';
import { DASHBOARD_STREAM, readEventsAfter } from '../../../../db/repositories/events.js';
import { listRunEvents } from '../../../../db/repositories/run-events.js';
import { createRun } from '../../../../db/repositories/workflow-runs.js';
import type { AssistantNodeInput } from '../../../../domain/runs/run-contract.js';
import { databaseKinds, type DatabaseKind, type TestDatabase } from '../../../support/databases.js';
import { fakeAssistants, type FakeAssistantSetup } from '../../../support/fake-assistants.js';
import { testServiceContext } from '../../../support/service-context.js';
import { makeTempDir, makeTempHome } from '../../../support/temp-dirs.js';
import { isAlive, nodeRunner, readPid, rejection, waitFor } from './node-helpers.js';

/** A database, a home, a working folder and the fake assistants, for one describe block. */
function nodeSandbox(kind: DatabaseKind) {
  const sandbox = {
    database: undefined as unknown as TestDatabase,
    home: undefined as unknown as ReturnType<typeof makeTempHome>,
    work: undefined as unknown as ReturnType<typeof makeTempDir>,
    fakes: undefined as unknown as FakeAssistantSetup,
    deps: undefined as unknown as ServiceContext,
    run: undefined as unknown as ReturnType<typeof nodeRunner>,
    childPidFile: '',
    runId: '',
    conversationId: '',
  };
  before(async () => {
    sandbox.database = await kind.create();
  });
  after(async () => {
    await sandbox.database.dispose();
  });
  beforeEach(async () => {
    sandbox.home = makeTempHome();
    sandbox.work = makeTempDir('cairn-assistant-node-');
    sandbox.fakes = fakeAssistants();
    sandbox.childPidFile = join(sandbox.work.path, '..', `${sandbox.work.path.split('/').at(-1)}.child.pid`);
    sandbox.deps = testServiceContext(sandbox.database.db, {
      home: sandbox.home.home,
      env: { ...sandbox.fakes.env, FAKE_ASSISTANT_CHILD_PID_FILE: sandbox.childPidFile },
    });
    sandbox.run = nodeRunner(sandbox.deps);
    const { knex } = sandbox.database.db;
    const conversation = await createConversation(knex, { platform: 'web' });
    const run = await createRun(knex, {
      workflowName: 'review',
      definition: { name: 'review' },
      conversationId: conversation.id,
    });
    sandbox.runId = run.id;
    sandbox.conversationId = conversation.id;
  });
  afterEach(() => {
    sandbox.fakes.cleanup();
    sandbox.work.cleanup();
    sandbox.home.cleanup();
  });
  return {
    sandbox,
    node(prompt: string, extra: Partial<AssistantNodeInput> = {}): AssistantNodeInput {
      return {
        runId: sandbox.runId,
        nodeId: 'review',
        conversationId: sandbox.conversationId,
        cwd: sandbox.work.path,
        prompt,
        codebaseId: null,
        ...extra,
      };
    },
  };
}

for (const kind of databaseKinds()) {
  describe(`runs/runAssistantNode: tool calls as run events (${kind.name})`, function () {
    const { sandbox, node } = nodeSandbox(kind);

    it('answers with the text and records each tool call and result on the run and its streams', async () => {
      const outcome = await sandbox.run.assistant(
        node(
          'check\n[fake:reply Looking.]\n[fake:tool Bash {"command":"ls"}]\n[fake:tool-error Read {"file_path":"x"}]\n[fake:reply Done.]',
        ),
      );
      expect(outcome).to.include({ status: 'succeeded', output: 'Looking.\n\nDone.' });
      expect(outcome.tokens).to.be.greaterThan(0);
      expect(outcome.costUsd).to.be.a('number');

      const { knex } = sandbox.database.db;
      const runEvents = await listRunEvents(knex, sandbox.runId);
      expect(runEvents.map((event) => [event.type, event.nodeId])).to.deep.equal([
        ['tool_call', 'review'],
        ['tool_result', 'review'],
        ['tool_call', 'review'],
        ['tool_result', 'review'],
      ]);
      const [call, result, , failedResult] = runEvents.map((event) => event.payload);
      expect(call).to.deep.include({ name: 'Bash', input: '{"command":"ls"}' });
      expect(result).to.deep.include({
        toolCallId: call!.toolCallId,
        name: 'Bash',
        isError: false,
        output: 'fake result of Bash',
      });
      expect(failedResult).to.deep.include({ name: 'Read', isError: true });

      for (const stream of [sandbox.conversationId, DASHBOARD_STREAM]) {
        const journal = await readEventsAfter(knex, stream, 0);
        expect(journal.map((event) => event.type)).to.deep.equal([
          'tool_call',
          'tool_result',
          'tool_call',
          'tool_result',
        ]);
        expect(journal[0]!.payload).to.deep.include({ runId: sandbox.runId, nodeId: 'review', name: 'Bash' });
      }
    });

    it('lets a codebase that consented run despite env files with keys', async () => {
      writeFileSync(join(sandbox.work.path, '.env'), 'ANTHROPIC_API_KEY=sk-ant-not-real\n');
      const codebase = await createCodebase(sandbox.database.db.knex, {
        name: 'consenting',
        repositoryKey: `local:${sandbox.work.path}`,
        sourcePath: sandbox.work.path,
        allowEnvKeys: true,
      });
      const outcome = await sandbox.run.assistant(node('[fake:reply fine]', { codebaseId: codebase.id }));
      expect(outcome).to.include({ status: 'succeeded', output: 'fine' });
    });
  });
}

describe('runs/runAssistantNode (real SDKs, fake assistants, in a Temporal activity context)', function () {
  const { sandbox, node } = nodeSandbox(databaseKinds()[0]!);

  it('starts a fresh session with the node model in place of the configured one', async () => {
    writeFileSync(
      join(sandbox.home.home, 'config.yaml'),
      'assistants:\n  claude:\n    model: configured-model\n',
    );
    await sandbox.run.assistant(node('first'));
    const outcome = await sandbox.run.assistant(node('[fake:recall]', { model: 'node-model' }));
    expect(outcome.output).to.equal('Recall: (nothing)'); // a fresh session: no earlier prompt
    const [first, second] = sandbox.fakes.invocations();
    expect(first).to.include({ assistant: 'claude', model: 'configured-model', cwd: sandbox.work.path });
    expect(second).to.include({ assistant: 'claude', model: 'node-model' });
    expect(second!.resume ?? null).to.equal(null);
  });

  it('runs codex when the node names it', async () => {
    const outcome = await sandbox.run.assistant(
      node('[fake:reply from codex]', { provider: 'codex', model: 'gpt-node' }),
    );
    expect(outcome).to.include({ status: 'succeeded', output: 'from codex' });
    expect(outcome.tokens).to.be.greaterThan(0);
    expect(sandbox.fakes.invocations()[0]).to.include({ assistant: 'codex', model: 'gpt-node' });
  });

  it('fails the node with process_failed when the assistant crashes', async () => {
    const outcome = await sandbox.run.assistant(node('[fake:reply partial]\n[fake:crash kaboom]'));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^process_failed: /);
  });

  it('fails the node with the assistant error when the turn fails', async () => {
    const outcome = await sandbox.run.assistant(node('[fake:fail the model gave up]'));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.include('the model gave up');
  });

  it('with output_format, takes the JSON of the last fenced block over other brackets', async () => {
    const outputFormat = {
      type: 'object',
      properties: { verdict: { enum: ['approve', 'reject'] }, issues: { type: 'array' } },
      required: ['verdict', 'issues'],
    };
    const prompt = [
      '[fake:reply I looked at {the diff} and a draft {"verdict": "maybe"}.]',
      '[fake:reply ```json]',
      '[fake:reply {"verdict": "approve", "issues": []}]',
      '[fake:reply ```]',
    ].join('\n');
    const outcome = await sandbox.run.assistant(node(prompt, { outputFormat }));
    expect(outcome.status).to.equal('succeeded');
    expect(outcome.output).to.deep.equal({ verdict: 'approve', issues: [] });
  });

  it('with output_format, fails when the answer holds no JSON or JSON that breaks the schema', async () => {
    const outputFormat = { type: 'object', required: ['verdict'] };
    const noJson = await sandbox.run.assistant(node('[fake:reply looks good to me]', { outputFormat }));
    expect(noJson).to.include({
      status: 'failed',
      error: 'the answer holds no JSON, but output_format expects JSON',
    });
    const wrong = await sandbox.run.assistant(node('[fake:reply {"verdit": "approve"}]', { outputFormat }));
    expect(wrong.status).to.equal('failed');
    expect(wrong.error).to.equal(
      "output does not match output_format: (root) must have required property 'verdict'",
    );
  });

  it('fails with the env-leak detail, without starting the assistant, when env files hold keys', async () => {
    writeFileSync(join(sandbox.work.path, '.env'), 'OPENAI_API_KEY=sk-not-a-real-key\n');
    const outcome = await sandbox.run.assistant(node('[fake:reply should not run]'));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^env_leak_detected: /);
    expect(outcome.error).to.include('OPENAI_API_KEY');
    expect(outcome.error).not.to.include('sk-not-a-real-key');
    expect(sandbox.fakes.invocations()).to.deep.equal([]);
  });

  it('on timeout fails the node and kills the assistant process tree', async () => {
    const outcome = await sandbox.run.assistant(node('[fake:spawn-child]', { timeoutMs: 2000 }));
    expect(outcome).to.include({ status: 'failed', error: 'timed out after 2s' });
    const child = readPid(sandbox.childPidFile)!;
    await waitFor(() => !isAlive(child), 'the assistant child to die');
  });

  it('on cancellation of the activity kills the assistant process tree and ends as cancelled', async () => {
    const env = new MockActivityEnvironment();
    const running = sandbox.run.assistant(node('[fake:spawn-child]'), env);
    const child = await waitFor(() => readPid(sandbox.childPidFile), 'the assistant child to start');
    env.cancel();
    expect(await rejection(running)).to.be.instanceOf(CancelledFailure);
    await waitFor(() => !isAlive(child), 'the assistant child to die');
  });
});
