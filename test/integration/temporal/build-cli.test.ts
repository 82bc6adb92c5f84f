import { expect } from 'chai';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTemporalCli } from '../../../worker/temporal/build-cli.js';
import { TEMPORAL_CLI_MODULE, TEMPORAL_CLI_VERSION } from '../../../worker/temporal/cli-version.js';
import { makeTempDir } from '../../support/temp-dirs.js';

// Plays the Go toolchain: `go install` writes an executable `temporal` into $GOBIN and notes its
// arguments and settings, as the real one would be given them.
const FAKE_GO = `#!/bin/sh
echo "$@" > "$FAKE_GO_NOTES/args"
echo "CGO_ENABLED=$CGO_ENABLED GOFLAGS=$GOFLAGS" > "$FAKE_GO_NOTES/env"
printf '#!/bin/sh\\necho temporal built\\n' > "$GOBIN/temporal"
chmod 755 "$GOBIN/temporal"
`;

describe('building the Temporal CLI (a fake go toolchain)', () => {
  it('publishes an executable copy into the tool cache, leaving nothing else behind, and reuses it', async () => {
    const dir = makeTempDir('cairn-build-cli-');
    try {
      const goBinary = join(dir.path, 'go');
      writeFileSync(goBinary, FAKE_GO);
      chmodSync(goBinary, 0o755);
      const toolCacheDir = join(dir.path, 'cache');
      const said: string[] = [];
      const options = {
        goBinary,
        toolCacheDir,
        env: { PATH: process.env.PATH, FAKE_GO_NOTES: dir.path },
        say: (line: string) => said.push(line),
      };

      const built = await buildTemporalCli(options);

      expect(built).to.equal(join(toolCacheDir, 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal'));
      expect(readFileSync(built, 'utf8')).to.equal('#!/bin/sh\necho temporal built\n');
      expect(statSync(built).mode & 0o111, 'executable').to.equal(0o111);
      // The build folder and its lock are gone: only the published binary stays.
      expect(readdirSync(join(toolCacheDir, 'temporal-cli', TEMPORAL_CLI_VERSION))).to.deep.equal([
        'temporal',
      ]);
      expect(readFileSync(join(dir.path, 'args'), 'utf8').trim()).to.equal(
        `install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`,
      );
      expect(readFileSync(join(dir.path, 'env'), 'utf8').trim()).to.equal(
        'CGO_ENABLED=0 GOFLAGS=-buildvcs=false',
      );
      expect(said.some((line) => line.includes('building the Temporal CLI'))).to.equal(true);

      // A second call finds the binary and builds nothing.
      writeFileSync(join(dir.path, 'args'), '');
      expect(await buildTemporalCli(options)).to.equal(built);
      expect(readFileSync(join(dir.path, 'args'), 'utf8')).to.equal('');
    } finally {
      dir.cleanup();
    }
  });
});
