import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { expect } from 'chai';
import type { ScriptNodeInput } from '../../../../domain/runs/run-contract.js';
import type { ScriptLanguage } from '../../../../domain/workflow-definitions/index.js';
import { listRunEvents } from '../../../../db/repositories/run-events.js';
import { testServiceContext } from '../../../support/service-context.js';
import { isAlive, nodeRunner, processNodeFixture, readPid, rejection, waitFor } from './node-helpers.js';

describe('runs/runScriptNode (real node, python3 and sh, in a Temporal activity context)', function () {
  const fixture = processNodeFixture('cairn-script-node-');

  let runCounter = 0;
  function node(
    language: ScriptLanguage,
    script: string,
    extra: Partial<ScriptNodeInput> = {},
  ): ScriptNodeInput {
    runCounter += 1;
    return {
      runId: `script-run-${runCounter}`,
      nodeId: 'compute',
      conversationId: null,
      cwd: fixture.work.path,
      script,
      language,
      deps: [],
      env: {},
      ...extra,
    };
  }

  it('runs JavaScript with Node as a module, in the node folder, with the node variables and without Cairn secrets', async () => {
    const outcome = await fixture.run.script(
      node(
        'javascript',
        [
          "import { basename } from 'node:path';",
          'await Promise.resolve();',
          'console.log(JSON.stringify({ dir: basename(process.cwd()), args: process.env.ARGUMENTS,',
          '  plan: process.env.PLAN_OUTPUT, secret: process.env.SLACK_APP_TOKEN ?? "unset" }));',
        ].join('\n'),
        { env: { ARGUMENTS: '$(touch pwned) `x`', PLAN_OUTPUT: 'the plan' } },
      ),
    );
    expect(outcome).to.include({ status: 'succeeded', tokens: 0, costUsd: 0 });
    expect(JSON.parse(outcome.output as string)).to.deep.equal({
      dir: fixture.work.path.split('/').at(-1),
      args: '$(touch pwned) `x`',
      plan: 'the plan',
      secret: 'unset',
    });
    expect(existsSync(join(fixture.work.path, 'pwned'))).to.equal(false);
  });

  it('runs Python with python3: the output without its trailing newline, parsed with output_format', async () => {
    const script =
      'import json, os, statistics\nprint(json.dumps({"mean": statistics.mean([1, 2, 3]), "cwd": os.getcwd()}))\n';
    const plain = await fixture.run.script(node('python', script));
    expect(plain.status).to.equal('succeeded');
    expect(plain.output).to.be.a('string').and.not.match(/\n$/);
    expect(JSON.parse(plain.output as string)).to.deep.equal({ mean: 2, cwd: fixture.work.path });
    const outputFormat = { type: 'object', properties: { mean: { type: 'number' } }, required: ['mean'] };
    const parsed = await fixture.run.script(node('python', script, { outputFormat }));
    expect(parsed).to.deep.include({ status: 'succeeded', output: { mean: 2, cwd: fixture.work.path } });
  });

  it('runs sh with -eu: an unset variable fails the node', async () => {
    expect(await fixture.run.script(node('sh', 'echo "sh in $(pwd)"'))).to.include({
      status: 'succeeded',
      output: `sh in ${fixture.work.path}`,
    });
    const unset = await fixture.run.script(node('sh', 'echo "$NOT_SET_ANYWHERE"'));
    expect(unset.status).to.equal('failed');
    expect(unset.error).to.match(/^exit code 2: .*NOT_SET_ANYWHERE/);
  });

  it('fails a non-zero exit with the exit code and the tail of standard error', async () => {
    const js = await fixture.run.script(
      node('javascript', 'const secretCode = 1;\nthrow new Error("no luck here");'),
    );
    expect(js.status).to.equal('failed');
    expect(js.error).to.match(/^exit code 1: [\s\S]*Error: no luck here/);
    const python = await fixture.run.script(
      node('python', 'import sys\nprint("partial")\nsys.exit("python says no")'),
    );
    expect(python).to.include({ status: 'failed', error: 'exit code 1: python says no' });
  });

  it('on timeout fails the node and kills the whole group, children too', async () => {
    const pidFile = join(fixture.work.path, 'child.pid');
    const script = [
      'import subprocess, time',
      `child = subprocess.Popen(["sleep", "300"])`,
      `open(${JSON.stringify(pidFile)}, "w").write(str(child.pid))`,
      'time.sleep(300)',
    ].join('\n');
    const outcome = await fixture.run.script(node('python', script, { timeoutMs: 1500 }));
    expect(outcome).to.include({ status: 'failed', error: 'timed out after 1500ms' });
    const child = await waitFor(() => readPid(pidFile), 'the child pid');
    await waitFor(() => !isAlive(child), 'the child sleep to die');
  });

  it('on cancellation of the activity kills the group and ends as cancelled', async () => {
    const pidFile = join(fixture.work.path, 'child.pid');
    const env = new MockActivityEnvironment();
    const script = [
      "import { spawn } from 'node:child_process';",
      "import { writeFileSync } from 'node:fs';",
      "const child = spawn('sleep', ['300'], { stdio: 'ignore' });",
      `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      'await new Promise(() => setInterval(() => {}, 1000));',
    ].join('\n');
    const running = fixture.run.script(node('javascript', script), env);
    const child = await waitFor(() => readPid(pidFile), 'the child sleep to start');
    env.cancel();
    expect(await rejection(running)).to.be.instanceOf(CancelledFailure);
    await waitFor(() => !isAlive(child), 'the child sleep to die');
  });

  it('records what the script writes as node_log events', async () => {
    const input = node('python', 'import sys\nprint("to out")\nprint("to err", file=sys.stderr)');
    expect(await fixture.run.script(input)).to.include({ status: 'succeeded', output: 'to out' });
    const logs = (await listRunEvents(fixture.database.db.knex, input.runId)).filter(
      (e) => e.type === 'node_log',
    );
    const lines = logs.map((event) => [event.payload.stream, event.payload.lines]);
    expect(lines).to.deep.include.members([
      ['stdout', ['to out']],
      ['stderr', ['to err']],
    ]);
  });

  it('with deps, runs through uv, and fails naming uv when it cannot be started', async () => {
    const emptyPath = join(fixture.work.path, 'no-tools');
    mkdirSync(emptyPath);
    const withoutUv = nodeRunner(
      testServiceContext(fixture.database.db, { home: fixture.home.home, env: { PATH: emptyPath } }),
    );
    const outcome = await withoutUv.script(node('python', 'import httpx', { deps: ['httpx>=0.27'] }));
    expect(outcome.status).to.equal('failed');
    expect(outcome.error).to.match(/^could not start uv \(the node lists deps\): .*ENOENT/);
  });

  it('fails clearly when the node folder does not exist', async () => {
    const outcome = await fixture.run.script(
      node('javascript', 'console.log(1)', { cwd: join(fixture.work.path, 'gone') }),
    );
    expect(outcome).to.include({ status: 'failed' });
    expect(outcome.error).to.match(/^the working folder .*gone does not exist$/);
  });
});
