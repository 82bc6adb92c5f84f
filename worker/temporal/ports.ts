import { createServer } from 'node:net';

/** Whether a TCP port on 127.0.0.1 can be bound right now. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port the OS says is free now. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The preferred port when it is free, otherwise any free one. */
export async function preferredOrFreePort(preferred: number, host = '127.0.0.1'): Promise<number> {
  return (await isPortFree(preferred, host)) ? preferred : freePort(host);
}
