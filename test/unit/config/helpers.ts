import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../../config/logger.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A debug-level logger whose JSON lines are collected for assertions. */
export function captureLogs(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

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
