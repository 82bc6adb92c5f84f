import { join } from 'node:path';
import { expect } from 'chai';
import { EnvLeakBlockedError, assertNoEnvLeak } from '../../../services/codebases/check-before-spawn.js';
import {
  ENV_LEAK_GATE_DISABLED,
  resetEnvLeakGateLogOnce,
} from '../../../services/codebases/env-leak-gate.js';
import { loadConfig } from '../../../config/load-config.js';
import { git, makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { captureLogs } from '../../support/logs.js';
import { SECRET_VALUE, tempDirs, writeFile } from './fixtures.js';

describe('activities/codebases/check-before-spawn', () => {
  const temp = tempDirs();
  let home: string;
  let repo: TempRepo;
  let worktree: string;
  let logs: ReturnType<typeof captureLogs>;

  /** A worktree of `repo`, where assistants actually run. */
  function addWorktree(): string {
    const path = join(temp.make(), 'wt');
    git(repo.path, 'worktree', 'add', '--quiet', '-b', 'feature', path);
    return path;
  }

  const check = (consent: boolean) =>
    assertNoEnvLeak({
      dir: worktree,
      consent,
      config: loadConfig({ home, repoPath: repo.path, env: {}, logger: logs.logger }),
      logger: logs.logger,
    });

  async function blockedError(consent = false): Promise<EnvLeakBlockedError> {
    try {
      await check(consent);
    } catch (error) {
      expect(error).to.be.instanceOf(EnvLeakBlockedError);
      return error as EnvLeakBlockedError;
    }
    throw new Error('expected assertNoEnvLeak to throw');
  }

  beforeEach(() => {
    resetEnvLeakGateLogOnce();
    home = temp.make();
    logs = captureLogs();
  });
  afterEach(() => {
    resetEnvLeakGateLogOnce();
    repo.cleanup();
    temp.cleanup();
  });

  it('passes a clean worktree', async () => {
    repo = makeTempRepo();
    worktree = addWorktree();
    expect(await check(false)).to.include({ allowed: true, reason: 'clean' });
  });

  it('throws EnvLeakBlockedError for a committed .env with a key, naming file and key only', async () => {
    repo = makeTempRepo({ files: { '.env.local': `CODEX_API_KEY=${SECRET_VALUE}\n`, 'README.md': '#\n' } });
    worktree = addWorktree();
    const error = await blockedError();
    expect(error.name).to.equal('EnvLeakBlockedError');
    expect(error.dir).to.equal(worktree);
    expect(error.scan).to.deep.equal({
      scanStatus: 'leaks_found',
      scannedFiles: ['.env.local'],
      findings: [{ file: '.env.local', keys: ['CODEX_API_KEY'] }],
    });
    expect(error.detail).to.include('.env.local: CODEX_API_KEY');
    expect(error.message).to.equal(error.detail);
    expect(error.detail).not.to.include(SECRET_VALUE);
  });

  it('catches a file that appeared after registration (scans at every spawn)', async () => {
    repo = makeTempRepo();
    worktree = addWorktree();
    expect((await check(false)).allowed).to.equal(true);
    writeFile(worktree, '.env', `CLAUDE_CODE_OAUTH_TOKEN=${SECRET_VALUE}\n`);
    expect((await blockedError()).scan.findings).to.deep.equal([
      { file: '.env', keys: ['CLAUDE_CODE_OAUTH_TOKEN'] },
    ]);
  });

  it("lets a worktree through on its codebase's consent", async () => {
    repo = makeTempRepo({ files: { '.env': `ANTHROPIC_API_KEY=${SECRET_VALUE}\n` } });
    worktree = addWorktree();
    expect(await check(true)).to.include({ allowed: true, reason: 'consented' });
  });

  it("uses the repository's allow_target_repo_keys over the global one, both ways", async () => {
    repo = makeTempRepo({ files: { '.env': `GEMINI_API_KEY=${SECRET_VALUE}\n` } });
    worktree = addWorktree();

    writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
    expect(await check(false)).to.include({ allowed: true, reason: 'gate_disabled' });

    writeFile(repo.path, '.cairn/config.yaml', 'allow_target_repo_keys: false\n');
    await blockedError();

    writeFile(home, 'config.yaml', 'allow_target_repo_keys: false\n');
    writeFile(repo.path, '.cairn/config.yaml', 'allow_target_repo_keys: true\n');
    expect(await check(false)).to.include({ allowed: true, reason: 'gate_disabled' });

    const sources = logs.lines
      .filter((line) => line.msg === ENV_LEAK_GATE_DISABLED)
      .map((line) => line.source);
    expect(sources).to.deep.equal(['global', 'repository']);
    expect(logs.text()).not.to.include(SECRET_VALUE);
  });
});
