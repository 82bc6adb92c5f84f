// What the tracing settings of the environment mean, without loading anything of OpenTelemetry:
// the process decides here whether to load the SDK at all.
import type { Environment } from '../../config/environment.js';
import type { TRACE_SAMPLERS } from '../../config/env-variables.js';

export type ProcessRole = 'all' | 'api' | 'worker';

export type SamplerName = (typeof TRACE_SAMPLERS)[number];

export interface TracingSettings {
  /** Where spans are posted (the traces endpoint itself, …/v1/traces). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion: string;
  sampler: SamplerName;
  /** The share of new traces kept by the ratio samplers, 0 to 1. */
  ratio: number;
}

/** The amendment's default (AMENDMENTS 24): a tenth of the traces, children follow their parent. */
export const DEFAULT_SAMPLER: SamplerName = 'parentbased_traceidratio';
export const DEFAULT_RATIO = 0.1;

const SERVICE_NAMES: Record<ProcessRole, string> = { all: 'cairn', api: 'cairn-api', worker: 'cairn-worker' };

/** Endpoint + /v1/traces, as the OTLP/HTTP specification builds the signal's address. */
function tracesUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** `key=value,key2=value2`, values percent-encoded, as OTEL_EXPORTER_OTLP_HEADERS is written. */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    try {
      headers[key] = decodeURIComponent(value);
    } catch {
      headers[key] = value;
    }
  }
  return headers;
}

/** The settings when an OTLP endpoint is set; undefined means tracing is off. */
export function tracingSettings(
  tracing: Environment['tracing'],
  role: ProcessRole,
  serviceVersion: string,
): TracingSettings | undefined {
  const url = tracing.tracesEndpoint ?? (tracing.endpoint ? tracesUrl(tracing.endpoint) : undefined);
  if (!url) return undefined;
  return {
    url,
    protocol: tracing.protocol,
    headers: parseOtlpHeaders(tracing.headers),
    serviceName: tracing.serviceName ?? SERVICE_NAMES[role],
    serviceVersion,
    sampler: tracing.sampler ?? DEFAULT_SAMPLER,
    ratio: tracing.samplerArg ?? DEFAULT_RATIO,
  };
}

/** The endpoint as a log line may show it: no credentials, no query. */
export function displayEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
