import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../worker/temporal/ports.js';
import { fakeAssistants, type FakeAssistantSetup } from '../support/fake-assistants.js';
import { spawnCairn, standaloneCairnEnv, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { jsonClient } from '../support/json-client.js';
import { loadSqliteDump } from '../support/sqlite-dump.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/upgrade-v0.1.0/', import.meta.url));
// The recorded databases name these absolute paths (test/fixtures/upgrade-v0.1.0/README.md).
const HOME = '/tmp/cairn-v0.1.0-upgrade-home';
const REPO = '/tmp/cairn-v0.1.0-upgrade-repo';
const RUN_ID = 'c0b914e4-2d4f-483b-9182-38d8f2aed3e0';
const CONVERSATION_ID = '7b141db6-8283-4c6a-8cf5-37a81122f219';

/** The home and repository as v0.1.0 left them, rebuilt from the fixture's text files. */
function rebuildRecordedHome(): void {
  for (const path of [HOME, REPO]) rmSync(path, { recursive: true, force: true });
  cpSync(join(FIXTURE, 'repo'), REPO, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=fixture@cairn.test', '-c', 'user.name=fixture', 'commit', '-qm', 'init');
  const workspace = join(HOME, 'workspaces', 'local', 'cairn-v0.1.0-upgrade-repo');
  for (const folder of ['artifacts', 'logs', 'worktrees'])
    mkdirSync(join(workspace, folder), { recursive: true });
  symlinkSync(REPO, join(workspace, 'source'));
  writeFileSync(join(workspace, '.cairn-repository'), `path:${REPO}`);
  loadSqliteDump(readFileSync(join(FIXTURE, 'cairn.sql'), 'utf8'), join(HOME, 'cairn.db'));
  loadSqliteDump(readFileSync(join(FIXTURE, 'temporal.sql'), 'utf8'), join(HOME, 'temporal.db'));
}

/**
 * An upgrade in place (issue 24): the current Cairn starts on the home of release v0.1.0 (its
 * database schema, and its Temporal history with a run waiting at an approval gate), migrates it,
 * and finishes that run, with the conversation written before the upgrade intact.
 */
describe('upgrading a v0.1.0 home with a run in flight', function () {
  this.timeout(3 * 60_000);
  let fakes: FakeAssistantSetup;
  let cairn: CairnProcess | undefined;

  before(() => {
    fakes = fakeAssistants();
    rebuildRecordedHome();
  });

  after(async () => {
    await cairn?.stop();
    fakes?.cleanup();
    for (const path of [HOME, REPO]) rmSync(path, { recursive: true, force: true });
  });

  it('migrates the database and finishes the paused run after its approval', async () => {
    const port = await freePort();
    cairn = spawnCairn(['start'], { env: standaloneCairnEnv(HOME, port, fakes.env), cwd: REPO });
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/health`, cairn, 90_000);
    const api = jsonClient(url);

    const messages = await api<{ items: Array<{ content: string }> }>(
      'GET',
      `/api/conversations/${CONVERSATION_ID}/messages`,
    );
    expect(messages.body.items.map((message) => message.content)).to.include('hello before the upgrade');

    const before = await api<{ run: { status: string } }>('GET', `/api/workflows/runs/${RUN_ID}`);
    expect(before.body.run.status).to.equal('paused');
    const approved = await api('POST', `/api/workflows/runs/${RUN_ID}/approve`, {
      comment: 'after the upgrade',
    });
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);

    let detail: { run: { status: string }; events: Array<{ type: string; data?: unknown }> } | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      detail = (await api<NonNullable<typeof detail>>('GET', `/api/workflows/runs/${RUN_ID}`)).body;
      if (['completed', 'failed'].includes(detail.run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(detail?.run.status, JSON.stringify(detail?.events)).to.equal('completed');
    expect(JSON.stringify(detail?.events)).to.contain('went on with after the upgrade');
  });
});
