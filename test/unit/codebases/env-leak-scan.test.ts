import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  ENV_FILES,
  SENSITIVE_KEYS,
  matchedKeys,
  scanForEnvLeaks,
} from '../../../services/codebases/env-leak-scan.js';
import { SECRET_VALUE, tempDirs, writeFile } from './fixtures.js';

describe('activities/codebases/env-leak-scan', () => {
  const temp = tempDirs();
  let dir: string;

  beforeEach(() => {
    dir = temp.make();
  });
  afterEach(() => temp.cleanup());

  /** The keys the scan reports for a single `.env` holding `text`. */
  async function keysIn(text: string): Promise<string[]> {
    writeFile(dir, '.env', text);
    const scan = await scanForEnvLeaks(dir);
    return scan.findings.flatMap((finding) => finding.keys);
  }

  it('lists the six env files and seven keys of the issue', () => {
    expect(ENV_FILES).to.deep.equal([
      '.env',
      '.env.local',
      '.env.development',
      '.env.production',
      '.env.development.local',
      '.env.production.local',
    ]);
    expect(SENSITIVE_KEYS).to.deep.equal([
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_API_KEY',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'OPENAI_API_KEY',
      'CODEX_API_KEY',
      'GEMINI_API_KEY',
    ]);
  });

  it('reports a clean directory with no env files', async () => {
    writeFile(dir, 'README.md', 'ANTHROPIC_API_KEY=not-an-env-file\n');
    expect(await scanForEnvLeaks(dir)).to.deep.equal({ scanStatus: 'clean', scannedFiles: [], findings: [] });
  });

  it('reports env files without sensitive keys as scanned but clean', async () => {
    writeFile(dir, '.env', 'DATABASE_URL=postgres://localhost/app\nPORT=3000\n');
    writeFile(dir, '.env.local', 'ANTHROPIC_API_KEY_HINT=see docs\nMY_OPENAI_API_KEY=x\n');
    expect(await scanForEnvLeaks(dir)).to.deep.equal({
      scanStatus: 'clean',
      scannedFiles: ['.env', '.env.local'],
      findings: [],
    });
  });

  for (const file of ENV_FILES) {
    it(`detects a key in ${file}`, async () => {
      writeFile(dir, file, `OPENAI_API_KEY=${SECRET_VALUE}\n`);
      expect(await scanForEnvLeaks(dir)).to.deep.equal({
        scanStatus: 'leaks_found',
        scannedFiles: [file],
        findings: [{ file, keys: ['OPENAI_API_KEY'] }],
      });
    });
  }

  for (const key of SENSITIVE_KEYS) {
    it(`detects ${key}`, async () => {
      expect(await keysIn(`OTHER=1\n${key}=${SECRET_VALUE}\n`)).to.deep.equal([key]);
    });
  }

  it('ignores files in subdirectories and other names', async () => {
    writeFile(dir, 'packages/app/.env', `ANTHROPIC_API_KEY=${SECRET_VALUE}\n`);
    writeFile(dir, '.env.example', `ANTHROPIC_API_KEY=${SECRET_VALUE}\n`);
    writeFile(dir, '.env.test', `ANTHROPIC_API_KEY=${SECRET_VALUE}\n`);
    expect((await scanForEnvLeaks(dir)).scanStatus).to.equal('clean');
  });

  it('reports every file and every key, in a stable order', async () => {
    writeFile(dir, '.env.production.local', `GEMINI_API_KEY=a\nANTHROPIC_API_KEY=b\n`);
    writeFile(dir, '.env', `CODEX_API_KEY=c\nCLAUDE_API_KEY=d\nCODEX_API_KEY=e\n`);
    const scan = await scanForEnvLeaks(dir);
    expect(scan.scannedFiles).to.deep.equal(['.env', '.env.production.local']);
    expect(scan.findings).to.deep.equal([
      { file: '.env', keys: ['CLAUDE_API_KEY', 'CODEX_API_KEY'] },
      { file: '.env.production.local', keys: ['ANTHROPIC_API_KEY', 'GEMINI_API_KEY'] },
    ]);
    expect(matchedKeys(scan)).to.deep.equal([
      'ANTHROPIC_API_KEY',
      'CLAUDE_API_KEY',
      'CODEX_API_KEY',
      'GEMINI_API_KEY',
    ]);
  });

  describe('parsing', () => {
    it('does not count a key with an empty value', async () => {
      const text = [
        'ANTHROPIC_API_KEY=',
        'OPENAI_API_KEY=   ',
        'GEMINI_API_KEY=""',
        "CODEX_API_KEY=''",
        'CLAUDE_API_KEY= # fill in locally',
        'export ANTHROPIC_AUTH_TOKEN=',
        'CLAUDE_CODE_OAUTH_TOKEN',
      ].join('\n');
      expect(await keysIn(text)).to.deep.equal([]);
      expect((await scanForEnvLeaks(dir)).scanStatus).to.equal('clean');
    });

    it('understands export, spaces around =, and colons', async () => {
      const text = [
        `export ANTHROPIC_API_KEY=${SECRET_VALUE}`,
        `OPENAI_API_KEY = ${SECRET_VALUE}`,
        `  export\tGEMINI_API_KEY  =  ${SECRET_VALUE}`,
        `CODEX_API_KEY: ${SECRET_VALUE}`,
      ].join('\n');
      expect(await keysIn(text)).to.deep.equal([
        'ANTHROPIC_API_KEY',
        'OPENAI_API_KEY',
        'CODEX_API_KEY',
        'GEMINI_API_KEY',
      ]);
    });

    it('understands single, double and backtick quotes, including multi-line values', async () => {
      const text = [
        `ANTHROPIC_API_KEY="${SECRET_VALUE}"`,
        `OPENAI_API_KEY='${SECRET_VALUE}' # trailing comment`,
        `GEMINI_API_KEY=\`${SECRET_VALUE}\``,
        'CODEX_API_KEY="',
        SECRET_VALUE,
        '"',
        'CLAUDE_API_KEY="# not a comment inside quotes"',
      ].join('\n');
      expect(await keysIn(text)).to.deep.equal([
        'ANTHROPIC_API_KEY',
        'CLAUDE_API_KEY',
        'OPENAI_API_KEY',
        'CODEX_API_KEY',
        'GEMINI_API_KEY',
      ]);
    });

    it('does not read assignments inside a multi-line value as keys', async () => {
      const text = ['CERT="-----BEGIN-----', `ANTHROPIC_API_KEY=${SECRET_VALUE}`, '-----END-----"'].join(
        '\n',
      );
      expect(await keysIn(text)).to.deep.equal([]);
    });

    it('ignores comment lines and commented-out assignments', async () => {
      const text = [
        '# ANTHROPIC_API_KEY=commented-out',
        `   # OPENAI_API_KEY=${SECRET_VALUE}`,
        '#GEMINI_API_KEY=x',
        `CODEX_API_KEY=${SECRET_VALUE} # a real one with a comment`,
      ].join('\n');
      expect(await keysIn(text)).to.deep.equal(['CODEX_API_KEY']);
    });

    it('handles CRLF line endings and a byte order mark', async () => {
      expect(await keysIn(`\uFEFFANTHROPIC_API_KEY=${SECRET_VALUE}\r\nOPENAI_API_KEY=\r\n`)).to.deep.equal([
        'ANTHROPIC_API_KEY',
      ]);
    });

    it('counts a key set anywhere in the file, even if emptied later', async () => {
      expect(await keysIn(`OPENAI_API_KEY=${SECRET_VALUE}\nOPENAI_API_KEY=\n`)).to.deep.equal([
        'OPENAI_API_KEY',
      ]);
    });

    it('matches key names exactly', async () => {
      expect(
        await keysIn(`anthropic_api_key=${SECRET_VALUE}\nXANTHROPIC_API_KEY=${SECRET_VALUE}\n`),
      ).to.deep.equal([]);
    });
  });

  describe('files that exist but cannot be read', () => {
    // Root reads a chmod 000 file anyway, so these use things no one can read as a file.
    it('reports a directory named .env as unreadable', async () => {
      mkdirSync(join(dir, '.env'));
      expect(await scanForEnvLeaks(dir)).to.deep.equal({
        scanStatus: 'unreadable',
        scannedFiles: ['.env'],
        findings: [{ file: '.env', keys: [], unreadable: true }],
      });
    });

    it('reports a symlink loop as unreadable', async () => {
      symlinkSync('.env.local', join(dir, '.env.local'));
      const scan = await scanForEnvLeaks(dir);
      expect(scan.findings).to.deep.equal([{ file: '.env.local', keys: [], unreadable: true }]);
      expect(scan.scanStatus).to.equal('unreadable');
    });

    it('reports a FIFO as unreadable without waiting for a writer', async () => {
      execFileSync('mkfifo', [join(dir, '.env.production')]);
      const scan = await scanForEnvLeaks(dir);
      expect(scan.findings).to.deep.equal([{ file: '.env.production', keys: [], unreadable: true }]);
    });

    it('says leaks_found when one file leaks and another is unreadable', async () => {
      mkdirSync(join(dir, '.env'));
      writeFile(dir, '.env.local', `ANTHROPIC_API_KEY=${SECRET_VALUE}\n`);
      const scan = await scanForEnvLeaks(dir);
      expect(scan.scanStatus).to.equal('leaks_found');
      expect(scan.findings).to.deep.equal([
        { file: '.env', keys: [], unreadable: true },
        { file: '.env.local', keys: ['ANTHROPIC_API_KEY'] },
      ]);
    });
  });

  describe('symlinks', () => {
    it('follows a symlinked env file to its target', async () => {
      const outside = temp.make();
      const target = writeFile(outside, 'shared.env', `CLAUDE_CODE_OAUTH_TOKEN=${SECRET_VALUE}\n`);
      symlinkSync(target, join(dir, '.env.development.local'));
      expect(await scanForEnvLeaks(dir)).to.deep.equal({
        scanStatus: 'leaks_found',
        scannedFiles: ['.env.development.local'],
        findings: [{ file: '.env.development.local', keys: ['CLAUDE_CODE_OAUTH_TOKEN'] }],
      });
    });

    it('treats a dangling symlink as absent: nothing can be loaded from it', async () => {
      symlinkSync(join(dir, 'missing'), join(dir, '.env'));
      expect(await scanForEnvLeaks(dir)).to.deep.equal({
        scanStatus: 'clean',
        scannedFiles: [],
        findings: [],
      });
    });
  });

  it('never puts a value into the result', async () => {
    writeFile(dir, '.env', `ANTHROPIC_API_KEY=${SECRET_VALUE}\nexport OPENAI_API_KEY="${SECRET_VALUE}"\n`);
    const scan = await scanForEnvLeaks(dir);
    expect(scan.scanStatus).to.equal('leaks_found');
    expect(JSON.stringify(scan)).not.to.include(SECRET_VALUE);
  });

  it('rejects a path that is not a directory instead of calling it clean', async () => {
    const file = writeFile(dir, 'plain.txt', 'x');
    let failure: unknown;
    try {
      await scanForEnvLeaks(file);
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(Error);
    failure = undefined;
    try {
      await scanForEnvLeaks(join(dir, 'missing'));
    } catch (error) {
      failure = error;
    }
    expect((failure as NodeJS.ErrnoException | undefined)?.code).to.equal('ENOENT');
  });
});
