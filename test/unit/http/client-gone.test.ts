import { expect } from 'chai';
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHttpApp, defineRoute, defineRoutes } from '../../../api/http/index.js';
import { listen, type ListeningApp } from '../../support/http.js';
import { captureLogs } from '../../support/logs.js';
import { waitFor } from '../../support/processes.js';

// A client that goes away in the middle of a stream (an SSE tab closed, a curl stopped) is the
// normal end of a stream, not a fault: it must not be logged as an error (issue 13, item 6).
describe('http kit: a client that leaves in the middle of a stream', () => {
  let server: ListeningApp | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('is logged at debug level, never as an error', async () => {
    const logs = captureLogs('debug');
    const streams: PassThrough[] = [];
    const app = createHttpApp({
      title: 'streams',
      version: '1.0.0',
      logger: logs.logger,
      routes: defineRoutes(
        defineRoute({
          method: 'GET',
          path: '/events',
          operationId: 'events',
          summary: 'a stream that never ends',
          responses: { 200: { description: 'events', contentType: 'text/event-stream' } },
          handler: ({ ctx }) => {
            const body = new PassThrough();
            streams.push(body);
            const timer = setInterval(() => body.write('data: tick\n\n'), 20);
            body.once('close', () => clearInterval(timer));
            ctx.type = 'text/event-stream';
            ctx.body = body;
          },
        }),
      ),
    });
    server = await listen(app);
    for (let client = 0; client < 5; client += 1) {
      await new Promise<void>((resolve, reject) => {
        const call = request(`${server!.url}/events`, (response) => {
          response.once('data', () => {
            call.destroy();
            resolve();
          });
        });
        call.once('error', (error: NodeJS.ErrnoException) =>
          error.code === 'ECONNRESET' ? resolve() : reject(error),
        );
        call.end();
      });
    }
    await waitFor(() => streams.every((stream) => stream.destroyed), 'the streams to close');
    await sleep(100);
    const requestLines = logs.lines.filter((line) => line.msg === 'http.request');
    expect(requestLines).to.have.length(5);
    expect(requestLines.every((line) => line.aborted === true)).to.equal(true);
    expect(
      logs.lines.filter((line) => line.level >= 50),
      logs.text(),
    ).to.deep.equal([]);
  });
});
