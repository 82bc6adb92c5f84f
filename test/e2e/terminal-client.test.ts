import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../worker/temporal/ports.js';
import { runCairn } from '../support/cairn-process.js';
import { databaseKinds } from '../support/databases.js';
import { GATED_WORKFLOW, startLiveCore, type LiveCore } from '../support/live-core.js';
import { makeTempDir } from '../support/temp-dirs.js';

const execFileAsync = promisify(execFile);
const CAIRN_BIN = fileURLToPath(new URL('../../bin/cairn.mjs', import.meta.url));

const BROKEN = `name: broken
nodes:
  - id: fails
    bash: |
      echo "about to fail"
      exit 4
`;

const SALUTE = `name: salute
inputs:
  who: { required: true }
  greeting: { default: hello }
nodes:
  - id: say
    bash: echo "$INPUT_GREETING, $INPUT_WHO"
`;

const WEEKLY = `name: weekly
schedule:
  cron: "0 6 * * 1"
  message: the weekly tidy
nodes:
  - id: tidy
    bash: echo "tidied for $ARGUMENTS"
`;

/**
 * The terminal door as a user runs it: the real `cairn` command in a child process, against a
 * live server (the API and the workers in this process, the fake assistant), on SQLite.
 */
describe('the terminal client (cairn as a subprocess against a live server)', function () {
  this.timeout(5 * 60_000);
  const [sqlite] = databaseKinds();
  let core: LiveCore;
  let clientHome: ReturnType<typeof makeTempDir>;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    core = await startLiveCore(sqlite!, {
      'README.md': '# shop\n',
      '.cairn/workflows/gated.yaml': GATED_WORKFLOW,
      '.cairn/workflows/broken.yaml': BROKEN,
      '.cairn/workflows/salute.yaml': SALUTE,
      '.cairn/workflows/weekly.yaml': WEEKLY,
    });
    clientHome = makeTempDir('cairn-client-home-');
    // A loaded machine must not make completion give up on the server.
    env = {
      ...process.env,
      CAIRN_URL: core.app.url,
      CAIRN_HOME: clientHome.path,
      NO_COLOR: '1',
      CAIRN_COMPLETE_TIMEOUT_MS: '60000',
    };
    delete env.CAIRN_API_TOKEN;
  });

  after(async () => {
    await core.close();
    clientHome.cleanup();
  });

  const cairn = (args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) =>
    runCairn(args, { env: { ...env, ...extra }, cwd: core.repo.path, input });

  const runIdIn = (output: string) => /cairn run approve ([0-9a-f-]{36})/.exec(output)?.[1];

  it('answers usage errors with exit 64, and no server with one line and exit 69', async () => {
    const help = await cairn(['--help']);
    expect(help.code).to.equal(0);
    for (const command of ['chat', 'codebase', 'workflow', 'run', 'config', 'status', 'login'])
      expect(help.output).to.match(new RegExp(`^  ${command}\\b`, 'm'));
    expect((await cairn(['frobnicate'])).code).to.equal(64);
    expect((await cairn(['run', 'approve'])).code).to.equal(64);
    expect((await cairn(['run', 'list', '--no-such-flag'])).code).to.equal(64);

    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const down = await cairn(['status', '--url', nowhere]);
    expect(down.code).to.equal(69);
    expect(down.output.trim().split('\n')).to.deep.equal([
      `cairn: no Cairn server answers at ${nowhere} (from --url): start one with \`npm start\` (or \`cairn start\`), or pass --url`,
    ]);
    const status = await cairn(['status']);
    expect(status.code, status.output).to.equal(0);
    expect(status.output).to.include(`at ${core.app.url} (sqlite)`);
  });

  it('adds and lists codebases, and chats about one with the answer streamed to stdout', async () => {
    const added = await cairn(['codebase', 'add', core.repo.path, '--name', 'shop']);
    expect(added.code, added.output).to.equal(0);
    const listed = await cairn(['codebase', 'list', '--json']);
    const codebases = listed.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string });
    expect(codebases.map((codebase) => codebase.name)).to.deep.equal(['shop']);

    const chat = await cairn(['chat', '--codebase', 'SHOP', '[fake:reply the shop has one README]']);
    expect(chat.code, chat.output).to.equal(0);
    expect(chat.output).to.include('the shop has one README');
    const piped = await cairn(['chat', '--codebase', 'shop'], {}, '[fake:reply from a pipe]\n');
    expect(piped.output).to.include('from a pipe');
    const command = await cairn(['chat', '--codebase', 'shop', '/workflow list']);
    expect(command.code).to.equal(0);
    expect(command.output).to.include('- `gated` — a gate, then a script');
  });

  it('runs a gated workflow: stops at the gate with exit 3, approve lets it finish, logs show its output', async () => {
    const paused = await cairn(['workflow', 'run', 'gated', 'ship', 'v2', '--codebase', 'shop', '--no-wait']);
    expect(paused.code, paused.output).to.equal(3);
    expect(paused.output).to.include('gate waits for approval: Ship it?');
    const runId = runIdIn(paused.output)!;
    expect(runId, paused.output).to.be.a('string');

    const approved = await cairn(['run', 'approve', runId, '--comment', 'LGTM']);
    expect(approved.code, approved.output).to.equal(0);
    expect(approved.output).to.include(`approved run ${runId}: now running`);
    const followed = await cairn(['run', 'logs', runId, '--follow']);
    expect(followed.code, followed.output).to.equal(0);
    expect(followed.output).to.include('│ approved with LGTM').and.include('│ to stderr');
    expect(followed.output).to.match(new RegExp(`run ${runId} completed in .* \\(0 tokens, \\$0\\)`));
    const shown = await cairn(['run', 'show', runId, '--json']);
    expect(JSON.parse(shown.output).run.status).to.equal('completed');
  });

  it('exits 1 for a failed run, with --json one object per line and a summary last', async () => {
    const failed = await cairn(['workflow', 'run', 'broken', '--codebase', 'shop', '--json']);
    expect(failed.code, failed.output).to.equal(1);
    const lines = failed.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.type)).to.include.members(['run_started', 'node_started', 'node_failed']);
    expect(lines.at(-1)).to.deep.include({ type: 'summary', exitCode: 1 });
    expect((lines.at(-1)!.run as { status: string }).status).to.equal('failed');

    const detached = await cairn(['workflow', 'run', 'broken', '--codebase', 'shop', '--detach']);
    expect(detached.code).to.equal(0);
    expect(detached.output.trim()).to.match(/^[0-9a-f-]{36}$/);
  });

  it('passes --input key=value to the workflow, and refuses a pair without = (exit 64)', async () => {
    const done = await cairn([
      'workflow',
      'run',
      'salute',
      '--codebase',
      'shop',
      '--input',
      'who=Ada',
      '--input',
      'greeting=good=day',
      '--logs',
    ]);
    expect(done.code, done.output).to.equal(0);
    expect(done.output).to.include('good=day, Ada');
    // A re-run starts the same workflow with the same inputs.
    const listed = await cairn(['run', 'list', '--workflow', 'salute', '--json']);
    const firstId = (JSON.parse(listed.output.trim().split('\n')[0]!) as { runId: string }).runId;
    const again = await cairn(['run', 'rerun', firstId]);
    expect(again.code, again.output).to.equal(0);
    const againId = /started run ([0-9a-f-]{36}), a re-run of /.exec(again.output)?.[1];
    expect(againId, again.output).to.be.a('string').and.not.equal(firstId);
    const followed = await cairn(['run', 'logs', againId!, '--follow']);
    expect(followed.code, followed.output).to.equal(0);
    expect(followed.output).to.include('good=day, Ada');
    const missing = await cairn(['workflow', 'run', 'salute', '--codebase', 'shop']);
    expect(missing.code, missing.output).to.not.equal(0);
    expect(missing.output).to.include('inputs/who');
    const malformed = await cairn(['workflow', 'run', 'salute', '--codebase', 'shop', '--input', 'who']);
    expect(malformed.code).to.equal(64);
    expect(malformed.output).to.include('--input who: write it as key=value');
  });

  it('follows a run across a dropped stream: reconnects with Last-Event-ID, every event once', async () => {
    const detached = await cairn(['workflow', 'run', 'gated', '--codebase', 'shop', '--detach']);
    const runId = detached.output.trim();
    // A proxy that cuts the first stream connection right after its first event.
    const upstream = new URL(core.app.url);
    const streamRequests: (string | undefined)[] = [];
    const proxy = createServer((request, response) => {
      const isStream = request.url!.startsWith('/api/stream/');
      if (isStream) streamRequests.push(request.headers['last-event-id'] as string | undefined);
      const cutAfterFirstEvent = isStream && streamRequests.length === 1;
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode!, answer.headers);
          answer.on('data', (chunk: Buffer) => {
            if (!(cutAfterFirstEvent && chunk.toString().includes('data:'))) {
              response.write(chunk);
              return;
            }
            // Cut only once the event has left for the client: a destroy before the flush would
            // drop it, and the client would rightly reconnect from its history's cursor instead.
            answer.destroy();
            response.write(chunk, () => response.socket?.destroy());
          });
          answer.on('end', () => response.end());
        },
      );
      request.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      let output = '';
      const child = spawn(
        process.execPath,
        [CAIRN_BIN, 'run', 'logs', runId, '--follow', '--url', proxyUrl],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      for (const deadline = Date.now() + 60_000; !output.includes('waits for approval'); await sleep(50))
        if (Date.now() > deadline) throw new Error(`the run did not pause:\n${output}`);
      const approved = await fetch(`${core.app.url}/api/workflows/runs/${runId}/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ comment: 'through a proxy' }),
      });
      expect(approved.status).to.equal(200);
      expect(await exited, output).to.equal(0);
      expect(streamRequests.length, 'the client reconnected').to.be.at.least(2);
      expect(Number(streamRequests[1]), 'the reconnect resumes after the event it had').to.be.above(0);
      const count = (text: string) => output.split(text).length - 1;
      expect(count('approved by'), output).to.equal(1);
      expect(count('│ approved with through a proxy'), output).to.equal(1);
      expect(count('after started'), output).to.equal(1);
      expect(count(`run ${runId} completed`), output).to.equal(1);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('says what is wrong in one line: an unknown run, an unknown workflow, a wrong config key', async () => {
    const unknown = await cairn(['run', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).to.equal(65);
    expect(unknown.output.trim()).to.equal('cairn: no run 00000000-0000-4000-8000-000000000000');
    const nope = await cairn(['workflow', 'run', 'nope', '--codebase', 'shop']);
    expect(nope.code).to.equal(65);
    expect(nope.output.trim()).to.equal('cairn: No workflow named nope.');
    const badKey = await cairn(['config', 'set', 'database.url', 'x']);
    expect(badKey.code).to.equal(64);
    expect(badKey.output).to.match(/^cairn: cannot set database.url/);
  });

  it('completes commands, options, workflow names, run ids and codebases, in a real bash', async () => {
    const complete = async (...words: string[]) =>
      (await cairn(['__complete', '--', ...words])).output.split('\n').filter(Boolean);
    expect(await complete('ru')).to.deep.equal(['run']);
    expect(await complete('workflow', 'run', '--codebase', 'shop', 'g')).to.deep.equal(['gated']);
    expect(await complete('workflow', 'run', 'a')).to.deep.equal(['assist']);
    expect(await complete('workflow', 'run', '--no')).to.deep.equal(['--no-wait']);
    expect(await complete('chat', '--codebase', '')).to.deep.equal(['shop']);
    const runs = JSON.parse((await cairn(['run', 'list', '--limit', '1', '--json'])).output) as {
      runId: string;
    };
    expect(await complete('run', 'logs', '')).to.include(runs.runId);
    expect(await complete('run', 'logs', runs.runId, '')).to.deep.equal([]);

    const bin = makeTempDir('cairn-bin-');
    try {
      writeFileSync(join(bin.path, 'cairn'), `#!/bin/sh\nexec "${process.execPath}" "${CAIRN_BIN}" "$@"\n`, {
        mode: 0o755,
      });
      const script = (await cairn(['completion', 'bash'])).output;
      // Not spawnSync: the server answering the completion runs in this very process.
      const bash = await execFileAsync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(cairn workflow run --codebase shop ga); COMP_CWORD=5; _cairn_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { env: { ...env, PATH: `${bin.path}:${env.PATH}` }, encoding: 'utf8' },
      );
      expect(bash.stdout.trim()).to.equal('gated');
    } finally {
      bin.cleanup();
    }
    expect((await cairn(['completion', 'fish'])).code).to.equal(64);
  });

  it('lists schedules, pauses and unpauses one, and fires it now', async () => {
    const listed = await cairn(['schedule', 'list']);
    expect(listed.code, listed.output).to.equal(0);
    expect(listed.output).to.match(/ID\s+CODEBASE\s+WORKFLOW\s+CRON\s+NEXT/);
    const line = listed.output.split('\n').find((text) => text.includes(' weekly '))!;
    expect(line).to.match(/shop\s+weekly\s+0 6 \* \* 1\s+\d{4}-/);
    const id = line.split(/\s+/)[0]!;
    const paused = await cairn(['schedule', 'pause', id, '--note', 'on leave']);
    expect(paused.output.trim()).to.equal(`${id} paused`);
    expect((await cairn(['schedule', 'list'])).output).to.include('paused (on leave)');
    const unpaused = await cairn(['schedule', 'unpause', id]);
    expect(unpaused.output).to.include(`${id} runs next at `);
    const fired = await cairn(['schedule', 'trigger', id]);
    expect(fired.code, fired.output).to.equal(0);
    expect(fired.output).to.include('fired weekly on shop');
    for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
      const runs = await cairn(['run', 'list', '--workflow', 'weekly', '--json']);
      const done = runs.output
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as { status: string; scheduleId: string })
        .find((run) => run.status === 'completed');
      if (done) {
        expect(done.scheduleId).to.equal(id);
        break;
      }
      if (Date.now() > deadline)
        throw new Error(`the fired schedule's run did not complete:\n${runs.output}`);
    }
    const unknown = await cairn(['schedule', 'pause', 'cairn-wf-nothing']);
    expect(unknown.code).to.not.equal(0);
    expect(unknown.output).to.include('No workflow schedule with id cairn-wf-nothing.');
  });

  it('shows and sets the configuration', async () => {
    const set = await cairn(['config', 'set', 'assistants.claude.model', 'claude-test-model']);
    expect(set.code, set.output).to.equal(0);
    const shown = await cairn(['config', 'show', '--json']);
    const config = JSON.parse(shown.output) as { assistants: { claude: { model?: string } } };
    expect(config.assistants.claude.model).to.equal('claude-test-model');
  });

  it('saves a server with cairn login (mode 0600) and reaches it by profile', async () => {
    const noUrl = { CAIRN_URL: '' };
    const saved = await cairn(['login', core.app.url, '--profile', 'here'], noUrl, '');
    expect(saved.code, saved.output).to.equal(0);
    expect(saved.output).to.include('no sign-in needed; saved as profile "here"');
    expect(statSync(join(clientHome.path, 'credentials.json')).mode & 0o777).to.equal(0o600);
    const status = await cairn(['status', '--profile', 'here'], noUrl);
    expect(status.code, status.output).to.equal(0);
    const byDefault = await cairn(['status'], noUrl);
    expect(byDefault.output).to.include(`at ${core.app.url}`);
    expect((await cairn(['status', '--profile', 'elsewhere'], noUrl)).code).to.equal(64);
  });

  it('chats interactively in a terminal: answers, runs /status, Ctrl-C cancels a turn, leaves on Ctrl-D', async () => {
    // `script` gives the client a real pseudo-terminal, as a user's shell would.
    const command = `${process.execPath} ${CAIRN_BIN} chat --codebase shop`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...env, TERM: 'xterm' },
      cwd: core.repo.path,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (text: string, from = 0) => {
      for (const deadline = Date.now() + 60_000; !output.includes(text, from); await sleep(50))
        if (Date.now() > deadline) throw new Error(`no "${text}" in:\n${output.slice(-3000)}`);
    };
    /** Types a line and waits for `expected` in what follows its echo (the terminal echoes typing). */
    const say = async (line: string, expected: string) => {
      const typed = output.length;
      child.stdin.write(`${line}\r`);
      await waitFor('\n', typed);
      await waitFor(expected, output.indexOf('\n', typed));
    };
    await waitFor('you> ');
    await say('[fake:reply hello from the pty]', 'hello from the pty');
    await say('/status', 'Codebase: **shop**');
    // A line ending in a backslash goes on: one message of two lines, the fake's two directives.
    await say('[fake:slow 200]\\', '...> ');
    await say(`[fake:reply ${'slowly '.repeat(100)}]`, 'slowly');
    child.stdin.write('\u0003');
    await waitFor('(cancelled)');
    await say('[fake:reply still here]', 'still here');
    child.stdin.write('\u0004');
    expect(await exited).to.equal(0);
  });
});
