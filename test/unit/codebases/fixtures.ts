import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '../../support/temp-dirs.js';

/** A value shaped like a real key; tests assert it never leaves the env file. */
export const SECRET_VALUE = 'sk-ant-api03-SECRET-VALUE-must-not-leak-7f3a9c';

/** Temp directories made during a test; cleanup() in afterEach removes them all. */
export function tempDirs(): { make: () => string; cleanup: () => void } {
  const made: Array<{ cleanup(): void }> = [];
  return {
    make() {
      const dir = makeTempDir('cairn-envleak-');
      made.push(dir);
      return dir.path;
    },
    cleanup() {
      for (const dir of made.splice(0)) dir.cleanup();
    },
  };
}

export function writeFile(dir: string, file: string, text: string): string {
  const full = join(dir, file);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}
