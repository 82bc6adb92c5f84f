import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../config/load-config.js';
import {
  ENV_LEAK_GATE_DISABLED,
  envLeakProblemDetail,
  evaluateEnvLeakGate,
  resetEnvLeakGateLogOnce,
  type EnvLeakGateInput,
} from '../../../services/codebases/env-leak-gate.js';
import { scanForEnvLeaks, type EnvLeakScan } from '../../../services/codebases/env-leak-scan.js';
import { captureLogs, type LogLine } from '../../support/logs.js';
import { SECRET_VALUE, tempDirs, writeFile } from './fixtures.js';

const WARN = 40;

describe('activities/codebases/env-leak-gate', () => {
  const temp = tempDirs();
  let home: string;
  let repo: string;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(() => {
    resetEnvLeakGateLogOnce();
    home = temp.make();
    repo = temp.make();
    logs = captureLogs();
  });
  afterEach(() => {
    resetEnvLeakGateLogOnce();
    temp.cleanup();
  });

  const leakyScan = async (): Promise<EnvLeakScan> => {
    writeFile(repo, '.env', `ANTHROPIC_API_KEY=${SECRET_VALUE}\n`);
    return scanForEnvLeaks(repo);
  };

  /** The gate as registration applies it: the repository's config layered over the global one. */
  const evaluateWithConfig = (scan: EnvLeakScan, consent = false, logger = logs.logger) => {
    const config = loadConfig({ home, repoPath: repo, env: {}, logger });
    return evaluateEnvLeakGate({
      scan,
      consent,
      allowTargetRepoKeys: config.effective.allowTargetRepoKeys,
      allowSource: config.effective.allowTargetRepoKeysSource,
      logger,
    });
  };

  const gateLines = (lines: LogLine[] = logs.lines) =>
    lines.filter((line) => line.msg === ENV_LEAK_GATE_DISABLED);

  describe('decision', () => {
    it('allows a clean directory', async () => {
      const scan = await scanForEnvLeaks(repo);
      expect(evaluateWithConfig(scan)).to.deep.equal({ allowed: true, reason: 'clean', scan });
    });

    it('blocks a directory with keys when nothing allows it', async () => {
      const scan = await leakyScan();
      expect(evaluateWithConfig(scan)).to.deep.equal({ allowed: false, reason: 'blocked', scan });
      expect(logs.lines).to.deep.equal([]);
    });

    it('blocks an unreadable env file: it may hold anything', async () => {
      mkdirSync(join(repo, '.env.local'));
      const scan = await scanForEnvLeaks(repo);
      expect(evaluateWithConfig(scan).reason).to.equal('blocked');
    });

    it('allows a directory with keys when the codebase consented', async () => {
      const scan = await leakyScan();
      expect(evaluateWithConfig(scan, true)).to.deep.equal({ allowed: true, reason: 'consented', scan });
      expect(gateLines()).to.deep.equal([]);
    });
  });

  describe('allow_target_repo_keys', () => {
    it('is off by default', async () => {
      const config = loadConfig({ home, repoPath: repo, env: {}, logger: logs.logger });
      expect(config.effective.allowTargetRepoKeysSource).to.equal('default');
      expect(evaluateWithConfig(await leakyScan()).allowed).to.equal(false);
    });

    it('set globally, lets a leaky directory through and logs the global source', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
      const decision = evaluateWithConfig(await leakyScan());
      expect(decision.allowed).to.equal(true);
      expect(decision.reason).to.equal('gate_disabled');
      const lines = gateLines();
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include({ level: WARN, event: ENV_LEAK_GATE_DISABLED, source: 'global' });
    });

    it('set true in the repository, wins over a global false', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: false\n');
      writeFile(repo, '.cairn/config.yaml', 'allow_target_repo_keys: true\n');
      const decision = evaluateWithConfig(await leakyScan());
      expect(decision).to.include({ allowed: true, reason: 'gate_disabled' });
      expect(gateLines()[0]).to.include({ source: 'repository' });
    });

    it('set false in the repository, wins over a global true', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
      writeFile(repo, '.cairn/config.yaml', 'allow_target_repo_keys: false\n');
      const decision = evaluateWithConfig(await leakyScan());
      expect(decision).to.include({ allowed: false, reason: 'blocked' });
      expect(gateLines()).to.deep.equal([]);
    });

    it('logs env_leak_gate_disabled once per process per source', async () => {
      const scan = await leakyScan();
      const input = (
        allowSource: EnvLeakGateInput['allowSource'],
        logger = logs.logger,
      ): EnvLeakGateInput => ({
        scan,
        consent: false,
        allowTargetRepoKeys: true,
        allowSource,
        logger,
      });
      evaluateEnvLeakGate(input('global'));
      evaluateEnvLeakGate(input('global'));
      expect(gateLines().map((line) => line.source)).to.deep.equal(['global']);

      evaluateEnvLeakGate(input('repository'));
      evaluateEnvLeakGate(input('repository'));
      evaluateEnvLeakGate(input('global'));
      expect(gateLines().map((line) => line.source)).to.deep.equal(['global', 'repository']);

      // Once per process, not per logger: a second logger sees nothing new.
      const other = captureLogs();
      evaluateEnvLeakGate(input('global', other.logger));
      evaluateEnvLeakGate(input('repository', other.logger));
      expect(gateLines(other.lines)).to.deep.equal([]);
    });

    it('logs again after resetEnvLeakGateLogOnce (a fresh process in tests)', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
      const scan = await leakyScan();
      evaluateWithConfig(scan);
      resetEnvLeakGateLogOnce();
      evaluateWithConfig(scan);
      expect(gateLines()).to.have.length(2);
    });

    it('does not log the bypass when it let nothing through', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
      expect(evaluateWithConfig(await scanForEnvLeaks(repo)).reason).to.equal('clean');
      expect(evaluateWithConfig(await leakyScan(), true).reason).to.equal('consented');
      expect(gateLines()).to.deep.equal([]);
    });

    it('never logs a value', async () => {
      writeFile(home, 'config.yaml', 'allow_target_repo_keys: true\n');
      evaluateWithConfig(await leakyScan());
      expect(logs.text()).to.include(ENV_LEAK_GATE_DISABLED);
      expect(logs.text()).not.to.include(SECRET_VALUE);
    });
  });

  describe('envLeakProblemDetail', () => {
    it('names each file and key, why it matters and the three ways out, without values', async () => {
      writeFile(repo, '.env', `ANTHROPIC_API_KEY=${SECRET_VALUE}\nOPENAI_API_KEY="${SECRET_VALUE}"\n`);
      writeFile(repo, '.env.local', `export GEMINI_API_KEY=${SECRET_VALUE}\n`);
      mkdirSync(join(repo, '.env.production'));
      const problem = envLeakProblemDetail(await scanForEnvLeaks(repo), repo);

      expect(problem.detail).to.include(repo);
      expect(problem.detail).to.include('.env: ANTHROPIC_API_KEY, OPENAI_API_KEY');
      expect(problem.detail).to.include('.env.local: GEMINI_API_KEY');
      expect(problem.detail).to.match(/\.env\.production: exists but could not be read/);
      expect(problem.detail).to.match(/Bun or dotenv/);
      expect(problem.detail).to.match(/billed/);
      expect(problem.detail).to.match(/Remove the key/);
      expect(problem.detail).to.match(/Rename the file .*\.env\.example/);
      expect(problem.detail).to.include('{"allowEnvKeys": true}');
      expect(problem.detail).to.include('PATCH /api/codebases/{id}');
      expect(problem.detail).not.to.include(SECRET_VALUE);

      expect(problem.files).to.deep.equal([
        { file: '.env', keys: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] },
        { file: '.env.local', keys: ['GEMINI_API_KEY'] },
        { file: '.env.production', keys: [], unreadable: true },
      ]);
      expect(problem.remedies.map((remedy) => remedy.action)).to.deep.equal([
        'remove_key',
        'rename_file',
        'consent',
      ]);
      expect(JSON.stringify(problem)).not.to.include(SECRET_VALUE);
    });
  });
});
