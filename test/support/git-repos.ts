import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from './temp-dirs.js';

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Cairn Test',
  GIT_AUTHOR_EMAIL: 'test@cairn.invalid',
  GIT_COMMITTER_NAME: 'Cairn Test',
  GIT_COMMITTER_EMAIL: 'test@cairn.invalid',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, ...GIT_IDENTITY },
    encoding: 'utf8',
  }).trim();
}

export interface TempRepo {
  path: string;
  /** Writes files (path -> content) and commits them. */
  commit(files: Record<string, string>, message?: string): string;
  cleanup(): void;
}

/** A real git repository in a temporary directory with one initial commit on `branch`. */
export function makeTempRepo(options: { branch?: string; files?: Record<string, string> } = {}): TempRepo {
  const dir = makeTempDir('cairn-repo-');
  git(dir.path, 'init', '--quiet', `--initial-branch=${options.branch ?? 'main'}`);
  const repo: TempRepo = {
    path: dir.path,
    commit(files, message = 'change') {
      for (const [file, content] of Object.entries(files)) {
        const full = join(dir.path, file);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
      git(dir.path, 'add', '--all');
      git(dir.path, 'commit', '--quiet', '--allow-empty', '-m', message);
      return git(dir.path, 'rev-parse', 'HEAD');
    },
    cleanup: dir.cleanup,
  };
  repo.commit(options.files ?? { 'README.md': '# test repository\n' }, 'initial commit');
  return repo;
}

/** A bare clone of `source`, usable as a `file://` remote without any network. */
export function makeBareRemote(source: string): { path: string; url: string; cleanup(): void } {
  const dir = makeTempDir('cairn-remote-');
  const path = join(dir.path, 'remote.git');
  git(dir.path, 'clone', '--quiet', '--bare', source, path);
  return { path, url: `file://${path}`, cleanup: dir.cleanup };
}
