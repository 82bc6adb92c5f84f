import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { captureLogs, type LogLine } from '../../support/logs.js';

export const ERROR_LEVEL = 50;

/** Temp directories made during a test; call cleanup() in afterEach. */
export function tempDirs(): { make: () => string; cleanup: () => void } {
  const made: string[] = [];
  return {
    make() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-config-'));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function writeFile(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}
