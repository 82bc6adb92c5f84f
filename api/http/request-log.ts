import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger.js';
import { activeTraceFields } from '../../config/tracing.js';
import type { HttpState } from './route.js';

/**
 * Gives each request a child logger (ctx.state.log, bound to the request id, made on first use:
 * a child costs its bindings and redaction set-up, and most requests never log) and writes one
 * `http.request` line when the response is done (with the trace and span ids when tracing is
 * on). The line is written on the socket's close so a streamed response reports its real status
 * and duration. Headers, query strings and bodies are never logged: they may hold credentials.
 */
export function requestLog(logger: Logger): Middleware<HttpState> {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    const { requestId } = ctx.state;
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      get: () => (child ??= logger.child({ requestId })),
      configurable: true,
      enumerable: true,
    });
    const { method, path } = ctx;
    // Taken now, inside the request's span: the close event fires outside it.
    const trace = activeTraceFields();
    ctx.res.once('close', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        requestId,
        method,
        path,
        status: ctx.res.statusCode,
        durationMs: Math.round(durationMs * 1000) / 1000,
        ...(ctx.res.writableFinished ? {} : { aborted: true }),
        ...trace,
      };
      logger.info(line, 'http.request');
    });
    return next();
  };
}
