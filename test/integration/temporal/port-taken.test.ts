import { expect } from 'chai';
import { Connection } from '@temporalio/client';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolCacheDir } from '../../../config/paths.js';
import { provideTemporal } from '../../../worker/temporal/provide-temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { testTemporalCli } from '../../support/temporal.js';

/**
 * A port found free can be taken before the dev server binds it (the suite saw it: "bind: address
 * already in use" on the server's HTTP port). A CLI that fails that way once, then runs the real
 * server, shows the start tried again on other ports.
 */
describe('the embedded Temporal dev server when a port is taken as it starts', function () {
  this.timeout(2 * 60_000);

  it('starts again on other ports and serves', async () => {
    const cliPath = await testTemporalCli();
    const folder = makeTempDir('cairn-port-taken-');
    const failedOnce = join(folder.path, 'failed-once');
    const wrapper = join(folder.path, 'temporal');
    // What the real server prints when its port is taken, once; the real server after that.
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `if [ ! -e '${failedOnce}' ]; then`,
        `  touch '${failedOnce}'`,
        `  echo '{"level":"FATAL","message":"listen tcp 127.0.0.1:1: bind: address already in use"}' >&2`,
        '  exit 1',
        'fi',
        `exec '${cliPath}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    const said: string[] = [];
    const endpoint = await provideTemporal({
      namespace: 'default',
      cliPath: wrapper,
      env: process.env,
      toolCacheDir: toolCacheDir(process.env),
      ports: 'random',
      ui: false,
      say: (line) => said.push(line),
    });
    try {
      expect(existsSync(failedOnce), 'the first start failed as a taken port does').to.equal(true);
      expect(said.some((line) => /port was taken/.test(line))).to.equal(true);
      const connection = await Connection.connect({ address: endpoint.address });
      try {
        const info = await connection.workflowService.getSystemInfo({});
        expect(info.serverVersion).to.be.a('string').and.not.equal('');
      } finally {
        await connection.close();
      }
    } finally {
      await endpoint.stop();
      folder.cleanup();
    }
  });
});
