import type { Logger } from '../../config/logger.js';
import { matchedKeys, scanForEnvLeaks, type EnvLeakScan } from './env-leak-scan.js';

export const ENV_LEAK_CONSENT_GRANTED = 'env_leak_consent_granted';
export const ENV_LEAK_CONSENT_REVOKED = 'env_leak_consent_revoked';

export interface ConsentChange {
  /** true when allowEnvKeys went to true, false when it went back to false. */
  granted: boolean;
  codebaseId: string;
  path: string;
  /** A fresh scan of the codebase, so the record shows what was consented to. */
  scan: EnvLeakScan;
  /** Who asked for the change, as the API knows them. */
  actor: string;
}

/** Writes the audit line for an allowEnvKeys change. Names files and keys only, never values. */
export function logConsentChange(logger: Logger, change: ConsentChange): void {
  const event = change.granted ? ENV_LEAK_CONSENT_GRANTED : ENV_LEAK_CONSENT_REVOKED;
  logger.warn(
    {
      event,
      codebaseId: change.codebaseId,
      path: change.path,
      scannedFiles: [...change.scan.scannedFiles],
      matchedKeys: matchedKeys(change.scan),
      scanStatus: change.scan.scanStatus,
      actor: change.actor,
    },
    event,
  );
}

/** A scan for the audit line; a checkout that vanished or cannot be read is recorded as such. */
export async function scanOrUnreadable(path: string): Promise<EnvLeakScan> {
  try {
    return await scanForEnvLeaks(path);
  } catch {
    return { scanStatus: 'unreadable', scannedFiles: [], findings: [] };
  }
}
