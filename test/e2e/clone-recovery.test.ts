import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { registrationWorkflowId } from '../../services/codebases/registration-client.js';
import { identityForUrl } from '../../services/codebases/identity-for-url.js';
import { git, makeBareRemote, makeTempRepo } from '../support/git-repos.js';
import { jsonClient } from '../support/json-client.js';
import { isAlive } from '../support/processes.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { startWorkerProcess, type WorkerProcessSetup } from '../support/worker-process.js';

/**
 * kill -9 of the worker in the middle of a registration by URL (issue 13): the clone is retried
 * on the new worker within the heartbeat timeout, the dead attempt's git is killed first, and the
 * codebase ends up registered once, with nothing of the dead attempt left in its workspace.
 */
describe('a worker killed in the middle of a clone', function () {
  this.timeout(5 * 60_000);

  it('registers the codebase once on the next worker, with the dead clone killed and its staging folder gone', async () => {
    const markers = makeTempDir('cairn-clone-marker-');
    const repo = makeTempRepo({ files: { 'README.md': '# cloned\n' } });
    const remote = makeBareRemote(repo.path);
    // git copies this template into every repository it creates, so the clone's checkout runs
    // the hook, which holds the clone there and notes an overlap with a live earlier attempt.
    const template = join(markers.path, 'template');
    mkdirSync(join(template, 'hooks'), { recursive: true });
    writeFileSync(
      join(template, 'hooks', 'post-checkout'),
      [
        '#!/bin/sh',
        `m='${markers.path}'`,
        'if [ -f "$m/pids" ]; then for p in $(cat "$m/pids"); do kill -0 "$p" 2>/dev/null && echo overlap >> "$m/overlap"; done; fi',
        'echo $$ >> "$m/pids"',
        'while [ ! -f "$m/release" ] && [ "$(wc -l < "$m/pids")" -lt 2 ]; do sleep 0.1; done',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const pids = () =>
      existsSync(join(markers.path, 'pids'))
        ? readFileSync(join(markers.path, 'pids'), 'utf8').trim().split('\n').map(Number)
        : [];
    const waitForPids = async (count: number) => {
      for (const deadline = Date.now() + 90_000; pids().length < count;) {
        if (Date.now() > deadline) throw new Error(`no clone attempt number ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    let setup: WorkerProcessSetup | undefined;
    try {
      setup = await startWorkerProcess({ GIT_TEMPLATE_DIR: template });
      const call = jsonClient(setup.app.url);
      const registering = call<{ id: string; sourcePath: string }>('POST', '/api/codebases', {
        url: remote.url,
      });
      await waitForPids(1);
      const firstClone = pids()[0]!;
      expect(isAlive(firstClone)).to.equal(true);
      await setup.killAndReplaceWorker();

      const registered = await registering;
      expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
      expect(pids().length).to.equal(2);
      expect(existsSync(join(markers.path, 'overlap')), 'two clones alive at once').to.equal(false);
      expect(isAlive(firstClone), "the dead attempt's git still running").to.equal(false);

      const { sourcePath } = registered.body;
      expect(readFileSync(join(sourcePath, 'README.md'), 'utf8')).to.equal('# cloned\n');
      expect(git(sourcePath, 'status', '--porcelain')).to.equal('');
      const workspace = dirname(sourcePath);
      expect(readdirSync(workspace).filter((entry) => entry.startsWith('.source-staging-'))).to.deep.equal(
        [],
      );
      const listed = await call<unknown[]>('GET', '/api/codebases');
      expect(listed.body).to.have.length(1);
    } finally {
      writeFileSync(join(markers.path, 'release'), '');
      await setup?.close(registrationWorkflowId(identityForUrl(remote.url).key));
      remote.cleanup();
      repo.cleanup();
      markers.cleanup();
    }
  });
});
