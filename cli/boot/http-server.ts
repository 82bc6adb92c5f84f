import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Environment } from '../../config/environment.js';
import type { Lifecycle } from './lifecycle.js';

/** Names the services answer to besides loopback names and IPs: this machine's, DOMAIN, ALLOWED_HOSTS. */
export function allowedHostNames(environment: Environment): string[] {
  const names = [hostname(), ...environment.server.allowedHosts];
  if (environment.deployment.domain) names.push(environment.deployment.domain);
  return names;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes the listener and any idle keep-alive sockets, so shutdown is not held by a browser tab. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

export interface ListeningService {
  name: string;
  url: string;
  /** The port bound (PORT=0 picks a free one). */
  port: number;
  server: Server;
}

/** Serves `handler` on host:port until the lifecycle stops; the URL shows a wildcard host as localhost. */
export async function serveHttp(
  name: string,
  handler: RequestListener,
  where: { host: string; port: number },
  lifecycle: Lifecycle,
): Promise<ListeningService> {
  const server = createServer(handler);
  const port = await listen(server, where.port, where.host);
  lifecycle.add(`${name} http`, () => closeServer(server));
  const shownHost = where.host === '0.0.0.0' || where.host === '::' ? 'localhost' : where.host;
  return { name, url: `http://${shownHost}:${port}`, port, server };
}
