/**
 * What the fake GitHub and GitLab REST APIs share: a loopback HTTP server with JSON bodies, a
 * record of every call, faults a test queues (a 500, a 429 with Retry-After), and waiting for a
 * state. The platforms' own routes are in github-api.ts and gitlab-api.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGitRepositories } from './git-http.js';

export interface RecordedCall {
  method: string;
  /** The path without the query string, decoded as the platform reads it. */
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The status the fake answered. */
  status: number;
  at: number;
  /** The Authorization header the call came with (git's calls included). */
  authorization?: string;
}

export interface FaultAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Too many requests: come back in `seconds` (Retry-After), as both platforms say it. */
export function tooManyRequests(seconds: number): FaultAnswer {
  return {
    status: 429,
    headers: { 'retry-after': String(seconds) },
    body: { message: 'API rate limit exceeded' },
  };
}

export const serverError: FaultAnswer = { status: 500, body: { message: 'Server Error' } };

export interface RouteAnswer {
  status: number;
  body?: unknown;
}

export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Handler = (
  match: RegExpExecArray,
  body: Record<string, unknown>,
  query: URLSearchParams,
  headers: IncomingMessage['headers'],
) => RouteAnswer;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

interface QueuedFault {
  method: string;
  pattern: RegExp;
  answer: FaultAnswer;
}

export abstract class FakeCodeHostServer {
  private readonly server: Server;
  private readonly routes: Route[] = [];
  private readonly faults: QueuedFault[] = [];
  readonly calls: RecordedCall[] = [];
  /** The platform's git over HTTP(S) at `<url>/<path>.git`, for clones and fetches with the token. */
  readonly git: FakeGitRepositories;
  url = '';

  constructor(git: { tokenUser: string; token: string; realm: string }) {
    this.git = new FakeGitRepositories(git.tokenUser, git.token, git.realm);
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  protected route(method: string, pattern: RegExp, handler: Handler): void {
    this.routes.push({ method, pattern, handler });
  }

  /** The next call that matches answers `answers` in turn instead of doing anything. */
  failNext(method: string, pattern: RegExp, ...answers: FaultAnswer[]): void {
    for (const answer of answers) this.faults.push({ method, pattern, answer });
  }

  callsOf(method: string, pattern: RegExp): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && pattern.test(call.path));
  }

  async waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Whether the call's credentials let it reach `path` (401 otherwise). */
  protected abstract authorized(headers: IncomingMessage['headers'], path: string): boolean;

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname);
    const method = request.method ?? 'GET';
    if (this.git.matches(path)) {
      const served = await this.git.serve(request, response, Buffer.concat(chunks));
      this.calls.push({
        method,
        path,
        query: url.searchParams,
        body: {},
        status: served.status,
        at: Date.now(),
        authorization: request.headers.authorization,
      });
      return;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return this.send(
        response,
        { method, path, query: url.searchParams, body },
        { status: 400, body: { message: 'Problems parsing JSON' } },
      );
    }
    const call = {
      method,
      path,
      query: url.searchParams,
      body,
      authorization: request.headers.authorization,
    };
    const faultIndex = this.faults.findIndex((fault) => fault.method === method && fault.pattern.test(path));
    if (faultIndex !== -1) {
      const [fault] = this.faults.splice(faultIndex, 1);
      return this.send(response, call, fault!.answer);
    }
    if (!this.authorized(request.headers, path))
      return this.send(response, call, { status: 401, body: { message: 'Bad credentials' } });
    for (const route of this.routes) {
      const match = route.method === method ? route.pattern.exec(path) : null;
      if (!match) continue;
      try {
        return this.send(response, call, route.handler(match, body, url.searchParams, request.headers));
      } catch (error) {
        if (error instanceof ApiRefusal)
          return this.send(response, call, { status: error.status, body: { message: error.message } });
        throw error;
      }
    }
    this.send(response, call, { status: 404, body: { message: 'Not Found' } });
  }

  private send(
    response: ServerResponse,
    call: Omit<RecordedCall, 'status' | 'at'>,
    answer: FaultAnswer,
  ): void {
    this.calls.push({ ...call, status: answer.status, at: Date.now() });
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The URL a clone of a hosted repository uses (`<url>/owner/repo.git`). */
  cloneUrl(path: string): string {
    return `${this.url}/${path}.git`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.git.cleanup();
  }
}

/** A comment (GitHub) or note (GitLab) as it stands, with every text it had. */
export interface FakeComment {
  id: number;
  thread: string;
  author: string;
  body: string;
  history: string[];
  edits: number;
}
