// Sends a batch of HTTP requests at once from a worker thread of its own and times each to its
// answer. The bench's main thread also serves the fake platform APIs that the server calls while
// it works; timed there, a 2xx that arrived on time would wait behind those handlers and count as
// the server's latency. The worker is plain JavaScript so that it needs no TypeScript loader.
import { Worker } from 'node:worker_threads';

export interface TimedRequest {
  body: string;
  headers: Record<string, string>;
}

export interface TimedAnswer {
  ms: number;
  status: number;
  text: string;
}

// node:http, a new connection per request, as deliveries from the internet arrive. Not fetch:
// undici's fetch costs this client's thread about a millisecond per request, which 50 requests at
// once add to every figure (measured: p99 87-104 ms with fetch against 30-50 ms with node:http
// for the same 50 webhooks on the same server).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const http = require('node:http');
function post(url, request) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = http.request(url, { method: 'POST', headers: request.headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ ms: performance.now() - started, status: response.statusCode, text: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
parentPort.on('message', async ({ id, url, requests }) => {
  try {
    const answers = await Promise.all(requests.map((request) => post(url, request)));
    parentPort.postMessage({ id, answers });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.stack) || error) });
  }
});
`;

export class DeliveryClient {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private nextId = 1;
  private readonly pending = new Map<number, (reply: { answers?: TimedAnswer[]; error?: string }) => void>();

  constructor() {
    this.worker.on('message', (reply: { id: number; answers?: TimedAnswer[]; error?: string }) => {
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    });
    this.worker.unref();
  }

  /** POSTs every request to `url` at once; each answer with the time from its send. */
  async postAll(url: string, requests: TimedRequest[]): Promise<TimedAnswer[]> {
    const id = this.nextId++;
    const reply = await new Promise<{ answers?: TimedAnswer[]; error?: string }>((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, url, requests });
    });
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.answers!;
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
