import { expect } from 'chai';
import {
  createHttpApp,
  defineRoute,
  serializedOnce,
  StrictObject,
  Type,
  type Authentication,
  type RouteDefinition,
} from '../../../api/http/index.js';
import { IdempotencyKeys } from '../../../services/idempotency/idempotency-keys.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { listen, type ListeningApp } from '../../support/http.js';
import { captureLogs } from '../../support/logs.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { makeTempDir } from '../../support/temp-dirs.js';

/** A handler that can be held open, to send a retry while the first request is still in hand. */
class Gate {
  private release: (() => void) | undefined;
  private held: Promise<void> | undefined;
  close(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release?.();
    this.held = undefined;
  }
  pass(): Promise<void> {
    return this.held ?? Promise.resolve();
  }
}

// Who the caller is comes from a test header: enough to show that keys belong to their caller.
const byHeader: Authentication = {
  securitySchemes: {},
  authenticate: async (ctx) => {
    const name = ctx.get('x-test-user');
    return name ? { name, via: 'test' } : undefined;
  },
  refuse: () => {
    throw new Error('every test request names its user');
  },
};

/** An app of one route whose callers are named by a test header, its keys kept in `keys`. */
function appOf(route: RouteDefinition, keys: IdempotencyKeys, validateResponses = false) {
  return createHttpApp({
    title: 'idempotency test',
    version: '0',
    logger: captureLogs('silent').logger,
    validateResponses,
    idempotency: keys,
    authentication: byHeader,
    routes: [route],
  });
}

for (const kind of databaseKinds()) {
  describe(`Idempotency-Key (${kind.name})`, () => {
    let test: TestDatabase;
    let server: ListeningApp;
    let now = Date.now();
    let store: IdempotencyKeys;
    let calls: Array<{ name: string }> = [];
    const gate = new Gate();
    let failNext: 'client' | 'server' | undefined;

    beforeEach(async () => {
      test = await kind.create();
      now = Date.now();
      calls = [];
      failNext = undefined;
      store = new IdempotencyKeys(test.db.knex, { clock: () => now, leaseMs: 60_000 });
      const app = appOf(
        defineRoute({
          method: 'POST',
          path: '/things',
          operationId: 'createThing',
          summary: 'make a thing',
          idempotent: true,
          body: StrictObject({ name: Type.String() }),
          responses: {
            201: { description: 'made', schema: StrictObject({ id: Type.Integer(), name: Type.String() }) },
          },
          handler: async ({ body }) => {
            calls.push(body);
            await gate.pass();
            if (failNext === 'client') {
              failNext = undefined;
              throw Object.assign(new Error('no'), { status: 409, expose: true });
            }
            if (failNext === 'server') {
              failNext = undefined;
              throw new Error('the database went away');
            }
            const id = calls.length;
            return { status: 201, headers: { Location: `/things/${id}` }, body: { id, name: body.name } };
          },
        }),
        store,
        true,
      );
      server = await listen(app);
    });
    afterEach(async () => {
      gate.open();
      await server.close();
      await test.dispose();
    });

    async function post(body: unknown, key?: string, user = 'ada') {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Test-User': user };
      if (key !== undefined) headers['Idempotency-Key'] = key;
      const response = await fetch(`${server.url}/things`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as Record<string, unknown>,
      };
    }

    it('answers a repeat with the first answer, and does the work once', async () => {
      const first = await post({ name: 'lamp' }, 'key-1');
      expect(first.status).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      // The same body with other spacing and key order is the same request.
      const again = await fetch(`${server.url}/things`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'key-1', 'X-Test-User': 'ada' },
        body: '{ "name" :  "lamp" }',
      });
      expect(again.status).to.equal(201);
      expect(await again.json()).to.deep.equal(first.body);
      expect(again.headers.get('location')).to.equal('/things/1');
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.headers.get('content-type')).to.match(/^application\/json/);
      expect(calls).to.have.length(1);

      // Without a key, or with another one, each request is its own.
      expect((await post({ name: 'lamp' })).body.id).to.equal(2);
      expect((await post({ name: 'lamp' }, 'key-2')).body.id).to.equal(3);
      expect(calls).to.have.length(3);
    });

    it('refuses the same key with another request (422), and nothing is done', async () => {
      await post({ name: 'lamp' }, 'key-1');
      const other = await post({ name: 'chair' }, 'key-1');
      expect(other.status).to.equal(422);
      expect(other.body).to.include({ code: 'idempotency_key_reused' });
      expect(calls).to.have.length(1);
    });

    it('answers a repeat that arrives while the first is still handled with 409 and Retry-After', async () => {
      gate.close();
      const first = post({ name: 'lamp' }, 'slow');
      while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const during = await post({ name: 'lamp' }, 'slow');
      expect(during.status).to.equal(409);
      expect(during.body).to.include({ code: 'idempotency_in_progress' });
      expect(during.headers.get('retry-after')).to.equal('1');
      gate.open();
      expect((await first).status).to.equal(201);
      const after = await post({ name: 'lamp' }, 'slow');
      expect(after.status).to.equal(201);
      expect(after.headers.get('idempotent-replayed')).to.equal('true');
      expect(calls).to.have.length(1);
    });

    it('keeps the key of a long request by renewing its lease, so a retry cannot take it over', async () => {
      // A real clock and a short lease: without renewals the key would lapse while the first waits.
      const quick = new IdempotencyKeys(test.db.knex, { leaseMs: 200 });
      const app = appOf(
        defineRoute({
          method: 'POST',
          path: '/slow',
          operationId: 'slowThing',
          summary: 'slow',
          idempotent: true,
          responses: { 204: { description: 'done' } },
          handler: async () => {
            calls.push({ name: 'slow' });
            await gate.pass();
          },
        }),
        quick,
      );
      const slow = await listen(app);
      try {
        const send = () =>
          fetch(`${slow.url}/slow`, {
            method: 'POST',
            headers: { 'Idempotency-Key': 'long', 'X-Test-User': 'ada' },
          });
        gate.close();
        const first = send();
        while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect((await send()).status).to.equal(409);
        gate.open();
        expect((await first).status).to.equal(204);
        expect(calls).to.have.length(1);
      } finally {
        await slow.close();
      }
    });

    it('replays a body that was sent as kept bytes (a shared serialized answer) as the same JSON', async () => {
      const shared = serializedOnce((source: { name: string }) => ({ id: 1, name: source.name }));
      const lamp = { name: 'lampe à pétrole' };
      const app = appOf(
        defineRoute({
          method: 'POST',
          path: '/shared',
          operationId: 'sharedThing',
          summary: 'shared',
          idempotent: true,
          responses: {
            200: {
              description: 'the thing',
              schema: StrictObject({ id: Type.Integer(), name: Type.String() }),
            },
          },
          handler: () => {
            calls.push(lamp);
            return { body: shared(lamp) };
          },
        }),
        store,
      );
      const served = await listen(app);
      try {
        const send = () =>
          fetch(`${served.url}/shared`, {
            method: 'POST',
            headers: { 'Idempotency-Key': 'bytes', 'X-Test-User': 'ada' },
          });
        const first = await send();
        const again = await send();
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(await again.json())
          .to.deep.equal(await first.json())
          .and.deep.equal({ id: 1, name: lamp.name });
        expect(calls).to.have.length(1);
      } finally {
        await served.close();
      }
    });

    it('keeps keys apart per caller', async () => {
      expect((await post({ name: 'lamp' }, 'shared', 'ada')).body.id).to.equal(1);
      expect((await post({ name: 'lamp' }, 'shared', 'grace')).body.id).to.equal(2);
      expect(calls).to.have.length(2);
    });

    it('frees the key of a request that failed, so the retry is handled afresh', async () => {
      failNext = 'server';
      expect((await post({ name: 'lamp' }, 'flaky')).status).to.equal(500);
      failNext = 'client';
      expect((await post({ name: 'lamp' }, 'flaky')).status).to.equal(409);
      const third = await post({ name: 'lamp' }, 'flaky');
      expect(third.status).to.equal(201);
      expect(third.headers.get('idempotent-replayed')).to.equal(null);
      expect(calls).to.have.length(3);
    });

    it('lets a retry take over from an attempt whose process died, once its lease ran out', async () => {
      const fingerprintOf = async () => {
        // An attempt that began and never finished: a process killed in the middle.
        const outcome = await store.begin('createThing:ada', 'orphan', 'f'.repeat(64));
        expect(outcome.kind).to.equal('proceed');
      };
      await fingerprintOf();
      const blocked = await post({ name: 'lamp' }, 'orphan');
      // The orphan's fingerprint is another request's: refused while its lease holds.
      expect(blocked.status).to.equal(422);
      now += 61_000;
      const taken = await post({ name: 'lamp' }, 'orphan');
      expect(taken.status).to.equal(201);
      expect(calls).to.have.length(1);
    });

    it('forgets an answer after 24 hours', async () => {
      await post({ name: 'lamp' }, 'daily');
      now += 24 * 60 * 60 * 1000 + 1;
      const next = await post({ name: 'lamp' }, 'daily');
      expect(next.headers.get('idempotent-replayed')).to.equal(null);
      expect(calls).to.have.length(2);
      // The purge removed the expired record and left the new one.
      const rows = await test.db.knex('idempotency_keys').select('key');
      expect(rows.map((row: { key: string }) => row.key)).to.deep.equal(['daily']);
    });

    it('refuses a malformed key with a 400 naming the header', async () => {
      for (const key of ['has space', 'x'.repeat(256), 'é']) {
        const answer = await post({ name: 'lamp' }, key);
        expect(answer.status, key).to.equal(400);
        expect(answer.body.errors).to.deep.equal([
          {
            path: '/headers/idempotency-key',
            message: 'must be 1 to 255 printable characters without spaces',
          },
        ]);
      }
      expect(calls).to.have.length(0);
    });
  });
}

describe('Idempotency-Key on the core API', () => {
  let test: TestDatabase;
  let server: TestCoreApp;
  const home = makeTempDir('cairn-home-');
  after(() => home.cleanup());

  before(async () => {
    test = await databaseKinds()[0]!.create();
    server = await startLazyCoreApp(test.db, { home: home.path, logger: captureLogs('silent').logger });
  });
  after(async () => {
    await server.close();
    await test.dispose();
  });

  it('creates one conversation for a retried POST, and answers the retry with it', async () => {
    const create = () =>
      fetch(`${server.url}/api/conversations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'conversation-1' },
        body: JSON.stringify({ title: 'Retried' }),
      });
    const first = await create();
    const second = await create();
    expect(first.status).to.equal(201);
    expect(second.status).to.equal(201);
    expect(second.headers.get('idempotent-replayed')).to.equal('true');
    expect(await second.json()).to.deep.equal(await first.json());
    const list = (await (await fetch(`${server.url}/api/conversations`)).json()) as unknown[];
    expect(list).to.have.length(1);
  });

  it('declares the header and its refusals on the operations that honour it', async () => {
    const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            parameters?: Array<{ name: string; in: string }>;
            responses: Record<string, unknown>;
          }
        >
      >;
    };
    const honouring = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .filter((operation) => operation.parameters?.some((parameter) => parameter.name === 'Idempotency-Key'));
    expect(honouring.map((operation) => operation.operationId).sort()).to.deep.equal([
      'createConversation',
      'registerCodebase',
      'rerunWorkflowRun',
      'runChatCommand',
      'sendMessage',
      'startRun',
    ]);
    for (const operation of honouring) {
      expect(operation.responses, operation.operationId).to.have.property('409');
      expect(operation.responses, operation.operationId).to.have.property('422');
    }
  });
});
