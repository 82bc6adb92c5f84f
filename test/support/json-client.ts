export interface JsonAnswer<T> {
  status: number;
  body: T;
}

/**
 * Calls a JSON API the way a client would: JSON bodies in, the status and the parsed body out
 * (undefined for an empty body). `base` may be a function, for servers that restart.
 */
export function jsonClient(base: string | (() => string), headers: Record<string, string> = {}) {
  return async function call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<JsonAnswer<T>> {
    const url = typeof base === 'function' ? base() : base;
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
}
