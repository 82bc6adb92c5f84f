import type Koa from 'koa';
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
