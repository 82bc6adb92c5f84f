import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../config/package-root.js';
import { makeTempDir } from '../../support/temp-dirs.js';

// scripts/build.mjs on a copy of itself in a tiny project laid out like Cairn: one real tsc build,
// then the verdict on its stamp after each kind of change.
describe('build staleness (scripts/build.mjs)', function () {
  this.timeout(60_000);
  let project: { path: string; cleanup(): void };
  const build = (...args: string[]) =>
    execFileSync(process.execPath, [join(project.path, 'scripts/build.mjs'), ...args], {
      cwd: project.path,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  const status = () => build('--status');
  const OLD = new Date('2001-01-01');
  const write = (file: string, text: string) => writeFileSync(join(project.path, file), text);

  before(() => {
    project = makeTempDir('cairn-build-');
    for (const folder of ['scripts', 'cli', 'domain']) mkdirSync(join(project.path, folder));
    copyFileSync(join(PACKAGE_ROOT, 'scripts/build.mjs'), join(project.path, 'scripts/build.mjs'));
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(project.path, 'node_modules'));
    write('package.json', '{ "type": "module" }');
    write('package-lock.json', '{}');
    write('tsconfig.json', '{}');
    write(
      'tsconfig.build.json',
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', target: 'ES2022', rootDir: '.', outDir: 'dist', types: [] },
        include: ['cli', 'domain', 'adapters'],
      }),
    );
    write('domain/answer.ts', 'export const answer = 42;');
    write('cli/main.ts', "import { answer } from '../domain/answer.js';\nconsole.log(answer);");
  });
  after(() => project.cleanup());

  it('builds when there is no build, then finds it current', () => {
    expect(status()).to.equal('missing');
    build('--if-stale');
    const main = join(project.path, 'dist/cli/main.js');
    expect(execFileSync(process.execPath, [main], { encoding: 'utf8' })).to.equal('42\n');
    expect(status()).to.equal('current');
  });

  // Each change below is undone after its check (an older time is as good as the one built), so
  // the one build above stays the reference.
  for (const file of ['domain/answer.ts', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
    it(`is stale when ${file} is saved after the build`, () => {
      const path = join(project.path, file);
      utimesSync(path, new Date(), new Date(Date.now() + 60_000));
      expect(status()).to.equal('stale');
      utimesSync(path, OLD, OLD);
      expect(status()).to.equal('current');
    });
  }

  it('is stale when a source is added, renamed or deleted, whatever its time', () => {
    const file = (name: string) => join(project.path, 'domain', name);
    write('domain/extra.ts', 'export {};');
    utimesSync(file('extra.ts'), OLD, OLD);
    expect(status(), 'added').to.equal('stale');
    renameSync(file('answer.ts'), file('renamed.ts'));
    rmSync(file('extra.ts'));
    expect(status(), 'renamed').to.equal('stale');
    renameSync(file('renamed.ts'), file('answer.ts'));
    expect(status(), 'as built').to.equal('current');
    rmSync(file('answer.ts'));
    expect(status(), 'deleted').to.equal('stale');
  });

  it('still builds with type errors, and says so', () => {
    write('domain/answer.ts', 'export const answer: string = 42;');
    const result = spawnSync(process.execPath, [join(project.path, 'scripts/build.mjs'), '--if-stale'], {
      cwd: project.path,
      encoding: 'utf8',
    });
    expect(result.status).to.equal(0);
    expect(result.stderr).to.include('built with type errors');
    expect(status()).to.equal('current');
  });

  it('is missing without the compiled entry', () => {
    rmSync(join(project.path, 'dist/cli/main.js'));
    expect(status()).to.equal('missing');
  });
});
