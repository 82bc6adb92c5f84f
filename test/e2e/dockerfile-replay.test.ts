import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../worker/temporal/ports.js';
import { replayDockerfile, type ReplayedStage } from '../support/dockerfile-replay.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// What cannot run here, and is checked another way: apt-get would install Debian packages into
// this machine (the replay uses the ones installed here, checked below), and a command naming an
// absolute path outside the working directory would write into this machine's root.
function runsHere(command: string, stage: ReplayedStage) {
  if (/^apt-get\b/.test(command))
    return { run: false as const, why: 'installs Debian packages: this machine has them (checked)' };
  const outside = command
    .split(/\s+/)
    .find((word) => word.startsWith('/') && !word.startsWith(`${stage.workdir}/`) && word !== stage.workdir);
  if (outside) return { run: false as const, why: `writes ${outside}, outside the working directory` };
  return { run: true as const };
}

/** Runs a command of the image (ENTRYPOINT + arguments) in the replayed /app; exit code and output. */
function runInImage(image: ReplayedStage, argv: string[], env: NodeJS.ProcessEnv) {
  const [command, ...rest] = argv;
  const result = spawnSync(command === 'node' ? process.execPath : command!, rest, {
    cwd: image.workdirPath,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the Dockerfile, replayed in a fresh folder (no Docker engine here)', function () {
  this.timeout(20 * 60_000);
  const work = makeTempDir('cairn-docker-replay-');
  let stages: ReplayedStage[] = [];
  let image: ReplayedStage;
  // The image's own settings over this machine's PATH and caches, never this checkout's config.
  const imageEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...image.env,
    ...extra,
  });

  before(async function () {
    this.timeout(20 * 60_000);
    stages = await replayDockerfile({
      dockerfile: join(ROOT, 'Dockerfile'),
      contextDir: ROOT,
      workDir: work.path,
      policy: runsHere,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_update_notifier: 'false' },
    });
    image = stages.at(-1)!;
  });
  after(() => work.cleanup());

  it('runs every RUN step that can run here, and says why the others cannot', () => {
    const runs = stages.flatMap((stage) => stage.runs);
    expect(runs.filter((run) => run.ran).map((run) => run.command)).to.deep.equal([
      'npm ci --no-audit --no-fund',
      'npm run build',
      'npm ci --omit=dev --no-audit --no-fund',
    ]);
    const left = runs.filter((run) => !run.ran);
    expect(left.map((run) => run.why)).to.deep.equal([
      'installs Debian packages: this machine has them (checked)',
      'writes /.cairn, outside the working directory',
    ]);
    // The packages the skipped apt-get step installs are the ones the replay used from here.
    const packages = left[0]!.command
      .match(/--no-install-recommends ([^&]+)/)![1]!
      .trim()
      .split(/\s+/);
    expect(packages).to.include.members(['git', 'python3', 'make', 'g++']);
    for (const name of packages) {
      const status = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
      expect(status.stdout, name).to.equal('install ok installed');
    }
  });

  it('leaves an image with the build, the production dependencies only, and the native SQLite addon', () => {
    expect(existsSync(join(image.workdirPath, 'dist/cli/main.js')), 'dist/cli/main.js').to.equal(true);
    expect(
      existsSync(join(image.workdirPath, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')),
    ).to.equal(true);
    expect(existsSync(join(image.workdirPath, 'node_modules/typescript')), 'a dev dependency').to.equal(
      false,
    );
    expect(existsSync(join(image.workdirPath, 'test')), '.dockerignore keeps test/ out').to.equal(false);
    const home = join(work.path, 'migrate-home');
    const migrated = runInImage(image, [...image.entrypoint!, 'migrate'], imageEnv({ CAIRN_HOME: home }));
    expect(migrated.code, migrated.output).to.equal(0);
    expect(migrated.output).to.include('applied: 0001-core-tables');
    // The image has neither a Temporal CLI nor Go: `cairn start` without TEMPORAL_ADDRESS falls
    // back to the SDK's download of the dev server, whose package must be a production one.
    const fallback = runInImage(
      image,
      ['node', '--input-type=module', '-e', "await import('@temporalio/testing')"],
      imageEnv({}),
    );
    expect(fallback.code, fallback.output).to.equal(0);
  });

  it("starts the image's default command, and its HEALTHCHECK passes", async () => {
    const temporal = await testTemporal();
    const port = await freePort();
    const env = imageEnv({
      // The image's user has no caches (this machine's Temporal CLI and Go builds among them).
      HOME: join(work.path, 'user-home'),
      CAIRN_HOME: join(work.path, 'start-home'),
      PORT: String(port),
      // Loopback here: the image's 0.0.0.0 is for a container's own network.
      HOST: '127.0.0.1',
      TEMPORAL_ADDRESS: temporal.endpoint.address,
      LOG_LEVEL: 'warn',
    });
    const [command, ...args] = [...image.entrypoint!, ...image.cmd!];
    const child = spawn(command === 'node' ? process.execPath : command!, args, {
      cwd: image.workdirPath,
      env,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const deadline = Date.now() + 120_000;
      let check = { code: 1 as number | null, output: '' };
      while (Date.now() < deadline && child.exitCode === null) {
        check = runInImage(image, image.healthcheck!, env);
        if (check.code === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(check.code, `healthcheck: ${check.output}\ncairn: ${output}`).to.equal(0);
      expect(image.user).to.equal('node');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
