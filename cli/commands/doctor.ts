import { ConfigError } from '../../config/errors.js';
import { createContext } from '../boot/context.js';
import type { CheckResult } from '../doctor/check.js';
import {
  checkAssistants,
  checkConfig,
  checkDatabase,
  checkGit,
  checkHome,
  checkSignIn,
  checkTemporal,
} from '../doctor/checks.js';

const MARK = { ok: '✔', warn: '!', fail: '✖' } as const;

/** `cairn doctor`: checks config, database, Temporal, git and the assistants; exit 1 on a failure. */
export async function runDoctor(options: { json?: boolean }): Promise<number> {
  let results: CheckResult[];
  try {
    // Checks only look: nothing is created (no home, no database file).
    const context = createContext({ env: { ...process.env, LOG_LEVEL: 'silent' }, createHome: false });
    results = [
      checkConfig(context),
      checkHome(context),
      await checkDatabase(context),
      await checkTemporal(context),
      await checkGit(),
      ...checkAssistants(context),
      checkSignIn(context),
    ];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    results = [
      { name: 'environment', status: 'fail', detail: error.message, fix: 'correct the variables named' },
    ];
  }
  if (options.json) {
    console.log(JSON.stringify({ checks: results }, null, 2));
  } else {
    for (const r of results) {
      console.log(`${MARK[r.status]} ${r.name}: ${r.detail}`);
      if (r.fix) console.log(`    fix: ${r.fix}`);
    }
  }
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
