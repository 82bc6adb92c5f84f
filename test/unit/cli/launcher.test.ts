import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../../support/temp-dirs.js';

const LAUNCHER = fileURLToPath(new URL('../../../bin/cairn', import.meta.url));
const CAIRN_MJS = `${LAUNCHER}.mjs`;

/**
 * bin/cairn (the installed `cairn` command), run with a `node` of the test's own first on PATH
 * that prints what it was given and exits with a chosen code: what the launcher hands to node,
 * without starting Cairn.
 */
describe('the cairn launcher (bin/cairn)', () => {
  let dir: ReturnType<typeof makeTempDir>;
  let path: string;
  before(() => {
    dir = makeTempDir();
    const fakes = join(dir.path, 'fake-node');
    mkdirSync(fakes);
    const fakeNode = join(fakes, 'node');
    writeFileSync(
      fakeNode,
      [
        '#!/bin/sh',
        'printf "arena=%s\\n" "${MALLOC_ARENA_MAX-unset}"',
        'printf "trim=%s\\n" "${MALLOC_TRIM_THRESHOLD_-unset}"',
        'printf "defaults=%s\\n" "${CAIRN_MALLOC_DEFAULTS-unset}"',
        'for arg in "$@"; do printf "arg=%s\\n" "$arg"; done',
        'exit "${FAKE_NODE_EXIT:-0}"',
        '',
      ].join('\n'),
    );
    chmodSync(fakeNode, 0o755);
    path = `${fakes}:${process.env.PATH}`;
  });
  after(() => dir.cleanup());

  function launch(command: string, env: Record<string, string>, args: string[]) {
    const result = spawnSync(command, args, { env: { PATH: path, ...env }, encoding: 'utf8' });
    return { status: result.status, lines: result.stdout.trim().split('\n') };
  }

  it('runs cairn.mjs with its malloc defaults, listed as its own choice, passing the arguments as given', () => {
    const { status, lines } = launch(LAUNCHER, {}, ['chat', 'two words', '--json']);
    expect(status).to.equal(0);
    expect(lines).to.deep.equal([
      'arena=2',
      'trim=131072',
      'defaults=MALLOC_ARENA_MAX,MALLOC_TRIM_THRESHOLD_',
      `arg=${CAIRN_MJS}`,
      'arg=chat',
      'arg=two words',
      'arg=--json',
    ]);
  });

  it("keeps the user's own values, and lists only what it set", () => {
    const own = launch(LAUNCHER, { MALLOC_ARENA_MAX: '8' }, ['status']).lines;
    expect(own.slice(0, 3)).to.deep.equal(['arena=8', 'trim=131072', 'defaults=MALLOC_TRIM_THRESHOLD_']);
    const both = { MALLOC_ARENA_MAX: '8', MALLOC_TRIM_THRESHOLD_: '0', CAIRN_MALLOC_DEFAULTS: 'stale' };
    expect(launch(LAUNCHER, both, ['status']).lines.slice(0, 3)).to.deep.equal([
      'arena=8',
      'trim=0',
      'defaults=',
    ]);
  });

  it('finds cairn.mjs through a link in another folder, as npm links the command', () => {
    const bin = join(dir.path, 'linked-bin');
    mkdirSync(bin);
    symlinkSync(LAUNCHER, join(bin, 'cairn'));
    const { lines } = launch(join(bin, 'cairn'), {}, ['--help']);
    expect(lines).to.include(`arg=${CAIRN_MJS}`);
  });

  it("exits with node's exit code", () => {
    expect(launch(LAUNCHER, { FAKE_NODE_EXIT: '7' }, ['status']).status).to.equal(7);
  });
});
