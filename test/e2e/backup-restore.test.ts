import { expect } from 'chai';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../worker/temporal/ports.js';
import { fakeAssistants, type FakeAssistantSetup } from '../support/fake-assistants.js';
import {
  runCairn,
  spawnCairn,
  standaloneCairnEnv,
  waitForOk,
  type CairnProcess,
} from '../support/cairn-process.js';
import { jsonClient } from '../support/json-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

interface Conversation {
  platform_conversation_id: string;
}

/**
 * `cairn backup` of a running Cairn in the middle of a burst of writes, and `cairn restore` of that
 * file into a new home, which starts and holds every write acknowledged before the backup began.
 */
describe('cairn backup and cairn restore', function () {
  this.timeout(3 * 60_000);
  const dirs = makeTempDir('cairn-backup-test-');
  const source = join(dirs.path, 'source');
  const target = join(dirs.path, 'target');
  let fakes: FakeAssistantSetup;
  let cairn: CairnProcess | undefined;

  before(() => {
    fakes = fakeAssistants();
  });

  after(async () => {
    await cairn?.stop();
    fakes.cleanup();
    dirs.cleanup();
  });

  async function startCairn(home: string): Promise<string> {
    const port = await freePort();
    cairn = spawnCairn(['start'], { env: standaloneCairnEnv(home, port, fakes.env), cwd: dirs.path });
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/health`, cairn, 90_000);
    return url;
  }

  const cli = (home: string, ...args: string[]) =>
    runCairn(args, { env: standaloneCairnEnv(home, 1, fakes.env), cwd: dirs.path });

  it('copies a running home during writes; the copy restores into a working home with every earlier write', async () => {
    const url = await startCairn(source);
    const api = jsonClient(url);
    const acknowledged: Array<{ id: string; at: number }> = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const created = await api<Conversation>('POST', '/api/conversations', {});
        expect(created.status).to.equal(201);
        acknowledged.push({ id: created.body.platform_conversation_id, at: Date.now() });
      }
    })();
    while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));
    const file = join(dirs.path, 'home.tar.gz');
    const backupStarted = Date.now();
    const backup = await cli(source, 'backup', file);
    writing = false;
    await writer;
    expect(backup.code, backup.output).to.equal(0);
    expect(backup.output).to.contain('cairn.db').and.contain('temporal.db');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const before = acknowledged.filter((entry) => entry.at < backupStarted).map((entry) => entry.id);
    expect(before.length).to.be.at.least(30);

    // A home in use is refused, and nothing in it changes.
    const database = readFileSync(join(source, 'cairn.db'));
    const refused = await cli(source, 'restore', file);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.contain('in use').and.contain('stop Cairn');
    expect(readFileSync(join(source, 'cairn.db')).equals(database)).to.equal(true);
    await cairn!.stop();

    const restored = await cli(target, 'restore', file);
    expect(restored.code, restored.output).to.equal(0);
    const url2 = await startCairn(target);
    const api2 = jsonClient(url2);
    for (const id of before) {
      const found = await api2<Conversation>('GET', `/api/conversations/${id}`);
      expect(found.status, id).to.equal(200);
    }
    // The restored home works: a message is answered by the assistant.
    const posted = await api2('POST', `/api/conversations/${before[0]}/message`, {
      message: '[fake:reply restored]',
    });
    expect(posted.status).to.equal(202);
    await cairn!.stop();
    cairn = undefined;
  });

  it('refuses a damaged backup before it changes anything, and a missing one', async () => {
    const file = join(dirs.path, 'home.tar.gz');
    const damaged = join(dirs.path, 'damaged.tar.gz');
    const bytes = readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(damaged, bytes);
    const database = readFileSync(join(target, 'cairn.db'));
    const refused = await cli(target, 'restore', damaged);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.contain('cannot be used');
    expect(readFileSync(join(target, 'cairn.db')).equals(database)).to.equal(true);
    const missing = await cli(target, 'restore', join(dirs.path, 'nothing.tar.gz'));
    expect(missing.code).to.equal(1);
    expect(missing.output).to.contain('no backup file');
    expect(existsSync(join(dirs.path, 'nothing.tar.gz'))).to.equal(false);
    // Backing up onto an existing file is refused too.
    const again = await cli(target, 'backup', file);
    expect(again.code).to.equal(1);
    expect(again.output).to.contain('exists already');
  });
});
