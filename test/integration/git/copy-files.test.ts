import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CopyFilesError,
  copyIntoWorktree,
  parseCopyFileEntry,
  validateCopyFileEntries,
} from '../../../infra/git/copy-files.js';
import { makeTempDir } from '../../support/temp-dirs.js';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

async function copyError(promise: Promise<unknown>): Promise<CopyFilesError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(CopyFilesError);
    return error as CopyFilesError;
  }
  throw new Error('expected a CopyFilesError');
}

describe('git: copying files into a worktree', () => {
  let scratch: { path: string; cleanup(): void };
  let source: string;
  let worktree: string;
  let outside: string;

  beforeEach(() => {
    scratch = makeTempDir('cairn-copy-');
    source = join(scratch.path, 'source');
    worktree = join(scratch.path, 'worktree');
    outside = join(scratch.path, 'outside');
    mkdirSync(source);
    mkdirSync(worktree);
    write(outside, { 'secret.txt': 'outside secret\n' });
  });
  afterEach(() => scratch.cleanup());

  const read = (path: string) => readFileSync(join(worktree, path), 'utf8');

  it('always copies .cairn/, without overwriting what the worktree already has', async () => {
    write(source, { '.cairn/config.yaml': 'local: true\n', '.cairn/commands/x.md': 'x\n' });
    write(worktree, { '.cairn/config.yaml': 'committed: true\n' });
    const result = await copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree });
    expect(result.copied).to.deep.equal(['.cairn']);
    expect(result.files).to.deep.equal(['.cairn/commands/x.md']);
    expect(read('.cairn/config.yaml')).to.equal('committed: true\n');
    expect(read('.cairn/commands/x.md')).to.equal('x\n');
  });

  it('copies plain paths, renames and directories, creating parents', async () => {
    write(source, {
      '.env': 'A=1\n',
      'config/local.json': '{}\n',
      'fixtures/a.txt': 'a\n',
      'fixtures/deep/b.txt': 'b\n',
    });
    write(worktree, { '.env': 'OLD=1\n' });
    const result = await copyIntoWorktree({
      sourceRoot: source,
      worktreeRoot: worktree,
      entries: ['.env', 'config/local.json -> settings/dev.json', 'fixtures->data/fixtures', './missing.txt'],
    });
    expect(read('.env')).to.equal('A=1\n'); // explicit entries overwrite
    expect(read('settings/dev.json')).to.equal('{}\n');
    expect(read('data/fixtures/a.txt')).to.equal('a\n');
    expect(read('data/fixtures/deep/b.txt')).to.equal('b\n');
    expect(result.copied).to.deep.equal(['.env', 'settings/dev.json', 'data/fixtures']);
    expect(result.skipped).to.deep.equal([{ entry: './missing.txt', reason: 'source_missing' }]);
    expect(result.files).to.have.members([
      '.env',
      'settings/dev.json',
      'data/fixtures/a.txt',
      'data/fixtures/deep/b.txt',
    ]);
  });

  it('copies the content behind a symlink that stays inside the repository', async () => {
    write(source, { 'real/conf.txt': 'real\n' });
    symlinkSync(join(source, 'real/conf.txt'), join(source, 'conf-link.txt'));
    symlinkSync('real', join(source, 'dir-link'));
    await copyIntoWorktree({
      sourceRoot: source,
      worktreeRoot: worktree,
      entries: ['conf-link.txt', 'dir-link'],
    });
    expect(read('conf-link.txt')).to.equal('real\n');
    expect(read('dir-link/conf.txt')).to.equal('real\n');
  });

  it('refuses absolute paths and .. escapes, before copying anything', async () => {
    write(source, { '.env': 'A=1\n' });
    for (const bad of ['../x', '/etc/passwd', '.env -> ../../evil', 'a/../../b', '.env -> /tmp/evil']) {
      const error = await copyError(
        copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree, entries: ['.env', bad] }),
      );
      expect(error.entry).to.equal(bad);
      expect(error.code).to.equal('escapes_repository');
    }
    expect(readdirSync(worktree)).to.deep.equal([]);
  });

  it('refuses a source symlink that points outside the repository', async () => {
    write(source, { '.env': 'A=1\n' });
    symlinkSync(join(outside, 'secret.txt'), join(source, 'leak.txt'));
    const error = await copyError(
      copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree, entries: ['.env', 'leak.txt'] }),
    );
    expect(error.entry).to.equal('leak.txt');
    expect(error.code).to.equal('escapes_repository');
    expect(readdirSync(worktree)).to.deep.equal([]);
  });

  it('refuses a symlink outside the repository found inside a copied directory', async () => {
    write(source, { 'conf/a.txt': 'a\n' });
    symlinkSync(outside, join(source, 'conf/escape'));
    const error = await copyError(
      copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree, entries: ['conf'] }),
    );
    expect(error.entry).to.equal('conf');
    expect(existsSync(join(worktree, 'conf'))).to.equal(false);
  });

  it('refuses a .cairn/ that links outside the repository', async () => {
    symlinkSync(outside, join(source, '.cairn'));
    const error = await copyError(copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree }));
    expect(error.entry).to.equal('.cairn');
  });

  it('refuses a destination redirected outside by a symlink in the worktree', async () => {
    write(source, { 'a.txt': 'a\n' });
    symlinkSync(outside, join(worktree, 'out'));
    symlinkSync(join(outside, 'new.txt'), join(worktree, 'dangling.txt'));
    for (const entry of ['a.txt -> out/a.txt', 'a.txt -> dangling.txt']) {
      const error = await copyError(
        copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree, entries: [entry] }),
      );
      expect(error.code).to.equal('escapes_repository');
    }
    expect(readdirSync(outside)).to.deep.equal(['secret.txt']);
  });

  it('stops at a symlink loop', async () => {
    write(source, { 'd/a.txt': 'a\n' });
    symlinkSync('.', join(source, 'd/self'));
    const error = await copyError(
      copyIntoWorktree({ sourceRoot: source, worktreeRoot: worktree, entries: ['d'] }),
    );
    expect(error.code).to.equal('symlink_loop');
  });

  describe('entry validation', () => {
    it('parses paths and renames', () => {
      expect(parseCopyFileEntry('.env')).to.deep.equal({
        entry: '.env',
        source: '.env',
        destination: '.env',
      });
      expect(parseCopyFileEntry('  a/b.json ->  c//d.json ')).to.deep.equal({
        entry: '  a/b.json ->  c//d.json ',
        source: 'a/b.json',
        destination: 'c/d.json',
      });
      expect(parseCopyFileEntry('a->b').destination).to.equal('b');
    });

    it('accepts good entries and lists every problem of bad ones', () => {
      expect(validateCopyFileEntries(['.env', 'a -> b', 'dir/', './x'])).to.deep.equal([]);
      const bad = [
        '../x',
        '/etc/passwd',
        'a -> ../b',
        'a -> b -> c',
        '.git/config',
        'x -> .git/hooks/pre-commit',
        '',
        '.',
        '~/x',
      ];
      const problems = validateCopyFileEntries([...bad, 'fine.txt', 42]);
      expect(problems.map((problem) => problem.entry)).to.deep.equal([...bad, '42']);
      for (const problem of problems) expect(problem.problem).to.be.a('string').with.length.greaterThan(0);
    });
  });
});
