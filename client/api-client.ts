import { ClientExit, EXIT } from './exit-codes.js';
import type { ServerProfile } from './server-profile.js';

/** A problem+json answer, as the API writes them. */
export interface Problem {
  status: number;
  title?: string;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
}

/** The server refused the request: its problem, for a caller that handles some codes itself. */
export class ApiRefusal extends ClientExit {
  constructor(readonly problem: Problem) {
    super(refusalLine(problem), exitFor(problem.status));
    this.name = 'ApiRefusal';
  }
}

function exitFor(status: number): number {
  if (status === 401 || status === 403) return EXIT.notAllowed;
  return status >= 500 ? EXIT.serverError : EXIT.refused;
}

/** One line: the problem's detail (or title), and the first field at fault. */
function refusalLine(problem: Problem): string {
  const text = problem.detail ?? problem.title ?? `the server answered ${problem.status}`;
  const field = problem.errors?.[0];
  const where = field && !text.includes(field.message) ? ` (${field.path} ${field.message})` : '';
  const hint = problem.status === 401 ? '; sign in with `cairn login <url>` or set CAIRN_API_TOKEN' : '';
  return `${text}${where}${hint}`;
}

function noServer(server: ServerProfile): ClientExit {
  const from =
    server.source === 'default' ? '' : ` (from ${server.source === 'flag' ? '--url' : server.source})`;
  return new ClientExit(
    `no Cairn server answers at ${server.url}${from}: start one with \`npm start\` (or \`cairn start\`), or pass --url`,
    EXIT.unavailable,
  );
}

export type Query = Record<string, string | number | boolean | undefined>;

/** The client side of the HTTP API: JSON in and out, refusals as ApiRefusal, no server as one line. */
export class ApiClient {
  constructor(readonly server: ServerProfile) {}

  url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const suffix = search.size > 0 ? `?${search}` : '';
    return `${this.server.url}${path}${suffix}`;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json',
      ...(this.server.token ? { authorization: `Bearer ${this.server.token}` } : {}),
      ...extra,
    };
  }

  /** Sends a request and answers the parsed JSON body (undefined for 204). */
  async request<T>(
    method: string,
    path: string,
    options: { body?: unknown; query?: Query; signal?: AbortSignal } = {},
  ): Promise<T> {
    const response = await this.fetch(this.url(path, options.query), {
      method,
      headers: this.headers(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    return readAnswer<T>(response);
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, { body });
  }

  /** fetch, with "no server" as one line instead of a stack trace. */
  async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw noServer(this.server);
    }
  }
}

async function readAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ClientExit(
      `the server answered ${response.status} with something that is not JSON: is this a Cairn server?`,
      EXIT.serverError,
    );
  }
  if (response.ok) return body as T;
  const problem = (body && typeof body === 'object' ? body : {}) as Partial<Problem>;
  throw new ApiRefusal({ ...problem, status: response.status });
}
