// A control for the latency benchmarks: a process of its own running nothing but node:http, which
// reads each request's body, parses it as JSON and answers 202. Timed by the same client as the
// real server, on the same machine at the same moment, its figures are what the method and the
// machine cost by themselves: the floor under any server's figures.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const SERVER_SOURCE = `
const http = require('node:http');
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString());
    response.writeHead(202, { 'content-type': 'application/json' });
    response.end('{"status":"ignored"}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/** Runs `measure` against the bare server's base URL, then stops the server. */
export async function withBareServer<T>(measure: (base: string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [firstLine] = (await once(child.stdout, 'data')) as [Buffer];
    return await measure(`http://127.0.0.1:${Number(firstLine.toString().trim())}`);
  } finally {
    child.kill();
  }
}
