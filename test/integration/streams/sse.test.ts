import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { appendEvent, DASHBOARD_STREAM, type JournalEvent } from '../../../db/repositories/events.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { openSse, type SseConnection } from '../../support/sse-client.js';
import { testServiceContext } from '../../support/service-context.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { captureLogs } from '../../support/logs.js';

const run = promisify(execFile);
const RUN_TS = fileURLToPath(new URL('../../../bin/run-ts.mjs', import.meta.url));
const APPENDER = fileURLToPath(new URL('../../fixtures/append-journal-events.ts', import.meta.url));

for (const kind of databaseKinds()) {
  describe(`SSE streams (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let workers: RunningTestWorkers;
    let app: TestCoreApp;
    let home: ReturnType<typeof makeTempDir>;
    let logs: ReturnType<typeof captureLogs>;
    const connections: SseConnection[] = [];

    async function startApp(): Promise<TestCoreApp> {
      const context = testServiceContext(test.db, { home: home.path, logger: logs.logger });
      // On Postgres only notifications can deliver in time: the poll is pushed out of reach.
      const pollMs = kind.name === 'postgres' ? 3_600_000 : 250;
      return startTestCoreApp(test.db, context, workers, { heartbeatMs: 100, listen: true, pollMs });
    }

    async function connect(path: string, lastEventId?: number): Promise<SseConnection> {
      const connection = await openSse(`${app.url}${path}`, { lastEventId });
      connections.push(connection);
      return connection;
    }

    async function newConversation(): Promise<string> {
      return (await createConversation(test.db.knex, { platform: 'web' })).id;
    }

    beforeEach(async () => {
      test = await kind.create();
      logs = captureLogs('info');
      home = makeTempDir('cairn-home-');
      workers = await startTestWorkers(test.db, {
        dependencies: testServiceContext(test.db, { home: home.path }),
      });
      app = await startApp();
    });

    afterEach(async () => {
      for (const connection of connections.splice(0)) connection.close();
      await app.close();
      await workers.stop();
      await test.dispose();
      home.cleanup();
    });

    it('sends each new event with its journal id, as JSON with a type, and heartbeats', async () => {
      const id = await newConversation();
      const stream = await connect(`/api/stream/${id}`);
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      await stream.waitForComment('connected');
      const first = await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { text: 'a' } });
      const second = await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { text: 'b' } });
      await appendEvent(test.db.knex, { streamKey: 'another-stream', type: 'text', payload: { text: 'x' } });
      await stream.waitFor((frame) => frame.id === second.id);
      expect(stream.frames.map((frame) => [frame.id, frame.data.type, frame.data.text])).to.deep.equal([
        [first.id, 'text', 'a'],
        [second.id, 'text', 'b'],
      ]);
      await stream.waitForComment('heartbeat');

      // A client leaving is ordinary: it stops being a reader, and nothing is logged as an error.
      expect(app.hub.readers(id)).to.equal(1);
      stream.close();
      for (let waited = 0; app.hub.readers(id) > 0 && waited < 10_000; waited += 20) await sleep(20);
      expect(app.hub.readers(id)).to.equal(0);
      await sleep(50);
      expect(logs.lines.filter((line) => line.level >= 50)).to.deep.equal([]);
    });

    it('replays everything after Last-Event-ID, then continues live', async () => {
      const id = await newConversation();
      const written: JournalEvent[] = [];
      for (const text of ['one', 'two', 'three']) {
        written.push(await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { text } }));
      }
      const stream = await connect(`/api/stream/${id}`, written[0]!.id);
      await stream.waitFor((frame) => frame.id === written[2]!.id);
      const live = await appendEvent(test.db.knex, {
        streamKey: id,
        type: 'text',
        payload: { text: 'four' },
      });
      await stream.waitFor((frame) => frame.id === live.id);
      expect(stream.frames.map((frame) => frame.data.text)).to.deep.equal(['two', 'three', 'four']);

      const byQuery = await connect(`/api/stream/${id}?lastEventId=${written[1]!.id}`);
      await byQuery.waitFor((frame) => frame.id === live.id);
      expect(byQuery.frames.map((frame) => frame.data.text)).to.deep.equal(['three', 'four']);
    });

    it('delivers events another process appends', async () => {
      const id = await newConversation();
      const stream = await connect(`/api/stream/${id}`, 0);
      await stream.waitForComment('connected');
      const target = test.databaseUrl ?? test.sqliteFile!;
      await run(process.execPath, [RUN_TS, APPENDER, target, id, '3']);
      await stream.waitFor((frame) => frame.data.text === 'remote-2');
      expect(stream.frames.map((frame) => frame.data.text)).to.deep.equal([
        'remote-0',
        'remote-1',
        'remote-2',
      ]);
    });

    it('lets a client reconnect to a restarted API with Last-Event-ID and miss nothing', async () => {
      const id = await newConversation();
      const stream = await connect(`/api/stream/${id}`, 0);
      const before = await appendEvent(test.db.knex, {
        streamKey: id,
        type: 'text',
        payload: { text: 'before' },
      });
      await stream.waitFor((frame) => frame.id === before.id);
      stream.close();
      await app.close();
      for (const text of ['while-down-1', 'while-down-2']) {
        await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { text } });
      }
      app = await startApp();
      const resumed = await connect(`/api/stream/${id}`, stream.frames.at(-1)!.id);
      const after = await appendEvent(test.db.knex, {
        streamKey: id,
        type: 'text',
        payload: { text: 'after' },
      });
      await resumed.waitFor((frame) => frame.id === after.id);
      expect(resumed.frames.map((frame) => frame.data.text)).to.deep.equal([
        'while-down-1',
        'while-down-2',
        'after',
      ]);
    });

    it('gives every one of 100 clients every event, in order', async () => {
      const id = await newConversation();
      const clients = await Promise.all(Array.from({ length: 100 }, () => connect(`/api/stream/${id}`, 0)));
      const written: number[] = [];
      for (let index = 0; index < 20; index += 1) {
        written.push(
          (await appendEvent(test.db.knex, { streamKey: id, type: 'text', payload: { index } })).id,
        );
      }
      await Promise.all(clients.map((client) => client.waitFor((frame) => frame.id === written.at(-1))));
      for (const client of clients) expect(client.frames.map((frame) => frame.id)).to.deep.equal(written);
    });

    it('streams the dashboard, and refuses unknown conversations and malformed ids', async () => {
      const dashboard = await connect(`/api/stream/${DASHBOARD_STREAM}`, 0);
      const event = await appendEvent(test.db.knex, {
        streamKey: DASHBOARD_STREAM,
        type: 'run_started',
        payload: {},
      });
      await dashboard.waitFor((frame) => frame.id === event.id);

      const unknown = await fetch(`${app.url}/api/stream/no-such-conversation`);
      expect(unknown.status).to.equal(404);
      expect(unknown.headers.get('content-type')).to.match(/problem\+json/);

      const id = await newConversation();
      const malformed = await fetch(`${app.url}/api/stream/${id}`, { headers: { 'Last-Event-ID': 'abc' } });
      expect(malformed.status).to.equal(400);
      const problem = (await malformed.json()) as { errors: Array<{ path: string }> };
      expect(problem.errors[0]!.path).to.equal('/headers/last-event-id');
    });
  });
}
