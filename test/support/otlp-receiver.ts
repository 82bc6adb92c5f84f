import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/JSON export carries it, with ids as lowercase hex. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  serviceName: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base address to give OTEL_EXPORTER_OTLP_ENDPOINT (spans arrive on /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the POSTs received, in order. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

/** OTLP/JSON writes ids as hex; an encoder may still send base64 (protobuf's JSON mapping): both read. */
function hexId(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  if (/^[0-9a-f]+$/i.test(value) && (value.length === 32 || value.length === 16)) return value.toLowerCase();
  return Buffer.from(value, 'base64').toString('hex');
}

function attributeValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  return value;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValue(value)]));
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
      }>;
    }>;
  }>;
}

/** The spans of one OTLP/JSON ExportTraceServiceRequest. */
export function spansOfJsonExport(request: ExportRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const serviceName = String(attributes(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        spans.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          serviceName,
          attributes: attributes(span.attributes),
        });
  }
  return spans;
}

/**
 * An OTLP/HTTP trace receiver on loopback, the outermost edge a collector would be: it accepts
 * JSON exports on /v1/traces and keeps their spans (anything else is answered, and counted).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const type = request.headers['content-type'] ?? '';
      contentTypes.push(type);
      if (type.startsWith('application/json'))
        spans.push(...spansOfJsonExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
