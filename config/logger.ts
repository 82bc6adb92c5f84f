import { pino, type Logger, type LevelWithSilent } from 'pino';
import { activeTraceFields } from './tracing.js';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Keys whose values must never reach a log line, wherever they appear in a logged object. */
const REDACTED_PATHS = [
  '*.token',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go; tests pass a stream to read them back. Defaults to stdout. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = (LOG_LEVELS as readonly string[]).includes(options.level ?? '')
    ? (options.level as LevelWithSilent)
    : 'info';
  const settings = {
    level,
    base: { service: 'cairn' },
    // trace_id and span_id of the active span, when tracing is on: a log line finds its trace.
    mixin: activeTraceFields,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
