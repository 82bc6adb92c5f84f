import type Koa from 'koa';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningApp {
  url: string;
  close(): Promise<void>;
}

/** Serves a Koa app on an ephemeral loopback port: tests talk to a real listening server. */
export async function listen(app: Koa<never> | Koa): Promise<ListeningApp> {
  const server = (app as Koa).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request with headers fetch will not send as given (Host, a forged Origin), as a browser on
 * another site or a DNS-rebinding page would send them.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.once('error', reject);
    request.end(options.body);
  });
}
