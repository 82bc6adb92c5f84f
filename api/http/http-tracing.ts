import type { Middleware } from 'koa';
import { tracingHooks } from '../../config/tracing.js';
import type { HttpState } from './route.js';

/**
 * One server span per request when tracing is on, named by the route template (`POST
 * /api/workflows/:name/run`), never the raw path, and active while the request is handled, so
 * the workflows it starts and the log lines it writes join its trace. An incoming `traceparent`
 * is continued. The span ends when the response does (a stream: when it closes).
 */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function httpTracing(): Middleware<HttpState> {
  return (ctx, next) => {
    const hooks = tracingHooks();
    if (!hooks) return next();
    const { api, tracer, rootDecision } = hooks;
    // Only a request that names a trace (or carries baggage) has anything to extract.
    const { traceparent, baggage } = ctx.headers;
    const newTrace = traceparent === undefined && baggage === undefined;
    let parent = newTrace ? api.ROOT_CONTEXT : api.propagation.extract(api.ROOT_CONTEXT, ctx.headers);
    if (newTrace && rootDecision && READ_METHODS.has(ctx.method)) {
      // A new trace's read: most are left out (90% at the default sampling), and those do nothing
      // at all (below), so they are told apart before any span is made.
      if (!rootDecision.keep()) return next();
      parent = rootDecision.keptRoot;
    }
    // The sampler decides here, once per request; attributes wait for its answer, since a span it
    // leaves out would drop them (none of Cairn's samplers looks at attributes).
    const span = tracer.startSpan(ctx.method, { kind: api.SpanKind.SERVER }, parent);
    if (!span.isRecording()) {
      // A read left out by the sampler (most of them, at the default 10%) does nothing more: it
      // starts no workflow that would need the "not sampled" passed on. A request that may change
      // something carries its unsampled context, so what it starts stays unsampled too; its span
      // records nothing and need not be ended.
      if (READ_METHODS.has(ctx.method)) return next();
      return api.context.with(api.trace.setSpan(parent, span), next);
    }
    span.setAttributes({
      'http.request.method': ctx.method,
      'url.path': ctx.path,
      'cairn.request_id': ctx.state.requestId,
    });
    ctx.res.once('close', () => {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof matched === 'string') {
        span.updateName(`${ctx.method} ${matched}`);
        span.setAttribute('http.route', matched);
      }
      const status = ctx.res.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    });
    return api.context.with(api.trace.setSpan(parent, span), next);
  };
}
