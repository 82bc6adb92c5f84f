import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../config/logger.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A logger whose JSON lines are collected for assertions. */
export function captureLogs(level = 'debug'): { logger: Logger; lines: LogLine[]; text: () => string } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString('utf8');
      raw.push(text);
      for (const line of text.split('\n')) {
        if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines, text: () => raw.join('') };
}
