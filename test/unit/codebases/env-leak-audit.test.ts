import { expect } from 'chai';
import {
  ENV_LEAK_CONSENT_GRANTED,
  ENV_LEAK_CONSENT_REVOKED,
  logConsentChange,
} from '../../../services/codebases/env-leak-audit.js';
import { scanForEnvLeaks } from '../../../services/codebases/env-leak-scan.js';
import { captureLogs } from '../../support/logs.js';
import { SECRET_VALUE, tempDirs, writeFile } from './fixtures.js';

const WARN = 40;

describe('activities/codebases/env-leak-audit', () => {
  const temp = tempDirs();
  let repo: string;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(() => {
    repo = temp.make();
    logs = captureLogs();
  });
  afterEach(() => temp.cleanup());

  async function leakyScan() {
    writeFile(repo, '.env', `ANTHROPIC_API_KEY=${SECRET_VALUE}\nOPENAI_API_KEY='${SECRET_VALUE}'\n`);
    writeFile(repo, '.env.local', `export ANTHROPIC_API_KEY="${SECRET_VALUE}"\nPORT=3000\n`);
    return scanForEnvLeaks(repo);
  }

  it('logs a grant at warn with the fields the spec lists', async () => {
    const scan = await leakyScan();
    logConsentChange(logs.logger, { granted: true, codebaseId: 'cb_1', path: repo, scan, actor: 'web-ui' });
    expect(logs.lines).to.have.length(1);
    expect(logs.lines[0]).to.deep.include({
      level: WARN,
      msg: ENV_LEAK_CONSENT_GRANTED,
      event: 'env_leak_consent_granted',
      codebaseId: 'cb_1',
      path: repo,
      scannedFiles: ['.env', '.env.local'],
      matchedKeys: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'],
      scanStatus: 'leaks_found',
      actor: 'web-ui',
    });
  });

  it('logs a revoke at warn, also for a clean codebase', async () => {
    const scan = await scanForEnvLeaks(repo);
    logConsentChange(logs.logger, {
      granted: false,
      codebaseId: 'cb_2',
      path: repo,
      scan,
      actor: 'telegram:42',
    });
    expect(logs.lines).to.have.length(1);
    expect(logs.lines[0]).to.deep.include({
      level: WARN,
      msg: ENV_LEAK_CONSENT_REVOKED,
      event: 'env_leak_consent_revoked',
      codebaseId: 'cb_2',
      path: repo,
      scannedFiles: [],
      matchedKeys: [],
      scanStatus: 'clean',
      actor: 'telegram:42',
    });
  });

  it('never writes a secret value, granted or revoked', async () => {
    const scan = await leakyScan();
    logConsentChange(logs.logger, { granted: true, codebaseId: 'cb_3', path: repo, scan, actor: 'api' });
    logConsentChange(logs.logger, { granted: false, codebaseId: 'cb_3', path: repo, scan, actor: 'api' });
    expect(logs.lines.map((line) => line.msg)).to.deep.equal([
      ENV_LEAK_CONSENT_GRANTED,
      ENV_LEAK_CONSENT_REVOKED,
    ]);
    for (const line of logs.lines) expect(JSON.stringify(line)).not.to.include(SECRET_VALUE);
    expect(logs.text()).not.to.include(SECRET_VALUE);
  });
});
