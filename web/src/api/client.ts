import type { Problem } from './types';

/** A refused or failed request, with the server's problem+json when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? `the server answered ${status}`);
  }
}

export const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/** The page's session ended (sign-in on): go to the sign-in page and come back here. */
function signInAgain(): never {
  const here = `${location.pathname}${location.search}`;
  location.assign(`/login?next=${encodeURIComponent(here)}`);
  throw new ApiError(401, undefined);
}

export interface ApiAnswer<T> {
  body: T;
  headers: Headers;
}

/** Calls the core API (same origin): JSON in, JSON out; a non-2xx answer throws an ApiError. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const response = await fetch(path, {
    method,
    headers: {
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 401) signInAgain();
  if (!response.ok) {
    const problem = response.headers.get('Content-Type')?.includes('json')
      ? ((await response.json().catch(() => undefined)) as Problem | undefined)
      : undefined;
    throw new ApiError(response.status, problem);
  }
  const text = response.status === 204 ? '' : await response.text();
  return { body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}

export const getJson = async <T>(path: string) => (await request<T>('GET', path)).body;
export const postJson = async <T>(path: string, body?: unknown) =>
  (await request<T>('POST', path, body ?? {})).body;
export const deleteJson = async (path: string) => {
  await request<void>('DELETE', path);
};

/** The `rel="next"` target of an RFC 8288 Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) return match[1];
  }
  return undefined;
}

/** A query string from the set values only. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
