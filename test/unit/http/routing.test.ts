import { expect } from 'chai';
import { startSampleServer, type RunningServer } from './sample-app.js';
import type { ProblemDocument } from '../../../api/http/index.js';

type Problem = ProblemDocument;

async function problemOf(response: Response): Promise<Problem> {
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  return (await response.json()) as Problem;
}

function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('http kit: routes, validation and problems', () => {
  let server: RunningServer;

  beforeEach(async () => {
    server = await startSampleServer();
  });

  afterEach(async () => {
    await server.close();
  });

  describe('happy paths', () => {
    it('coerces query integers and booleans and applies defaults', async () => {
      const response = await fetch(`${server.url}/api/items?limit=3&verbose=true`);
      expect(response.status).to.equal(200);
      const body = (await response.json()) as {
        items: Array<{ id: number }>;
        limit: number;
        verbose: boolean;
      };
      expect(body.limit).to.equal(3);
      expect(body.verbose).to.equal(true);
      expect(body.items.map((item) => item.id)).to.deep.equal([1, 2, 3]);

      const defaulted = (await (await fetch(`${server.url}/api/items`)).json()) as { limit: number };
      expect(defaulted.limit).to.equal(2);
    });

    it('reads the usual spellings of a yes/no query flag, a bare flag included', async () => {
      const verbose = async (query: string) => {
        const response = await fetch(`${server.url}/api/items?${query}`);
        return {
          status: response.status,
          body: (await response.json()) as { verbose?: boolean; errors?: unknown },
        };
      };
      for (const query of ['verbose', 'verbose=', 'verbose=1', 'verbose=yes', 'verbose=ON', 'verbose=True'])
        expect((await verbose(query)).body.verbose, query).to.equal(true);
      for (const query of ['verbose=0', 'verbose=no', 'verbose=off', 'verbose=false'])
        expect((await verbose(query)).body.verbose, query).to.equal(false);
      const refused = await verbose('verbose=maybe');
      expect(refused.status).to.equal(400);
      expect(JSON.stringify(refused.body.errors)).to.contain('/query/verbose');
    });

    it('coerces path parameters', async () => {
      const response = await fetch(`${server.url}/api/items/4`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.include({ id: 4, name: 'item-4' });
    });

    it('prefers a literal path segment over a parameter', async () => {
      const response = await fetch(`${server.url}/api/items/search?q=item-2`);
      expect(response.status).to.equal(200);
      expect(((await response.json()) as Array<{ id: number }>).map((item) => item.id)).to.deep.equal([2]);
    });

    it('creates from a validated body with status and headers from the handler', async () => {
      const response = await postJson(`${server.url}/api/items`, {
        name: 'bolt',
        quantity: 7,
        kind: 'widget',
      });
      expect(response.status).to.equal(201);
      expect(response.headers.get('location')).to.equal('/api/items/6');
      expect(await response.json()).to.deep.equal({ id: 6, name: 'bolt', quantity: 7, kind: 'widget' });
    });

    it('answers 204 when a handler returns nothing', async () => {
      const response = await fetch(`${server.url}/api/items/2`, { method: 'DELETE' });
      expect(response.status).to.equal(204);
      expect(await response.text()).to.equal('');
      expect(server.items.has(2)).to.equal(false);
    });

    it('leaves a response the handler wrote itself alone', async () => {
      const response = await fetch(`${server.url}/api/raw`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain/);
      expect(await response.text()).to.equal('written by the handler');
    });
  });

  describe('validation', () => {
    it('rejects a bad path parameter, naming it', async () => {
      const response = await fetch(`${server.url}/api/items/abc`);
      expect(response.status).to.equal(400);
      const problem = await problemOf(response);
      expect(problem.code).to.equal('validation_failed');
      expect(problem.type).to.equal('https://cairn.dev/problems/validation_failed');
      expect(problem.instance).to.equal('/api/items/abc');
      expect(problem.errors).to.deep.equal([{ path: '/params/id', message: 'must be integer' }]);
    });

    it('rejects bad and unknown query parameters, naming each', async () => {
      const response = await fetch(`${server.url}/api/items?limit=500&colour=red`);
      expect(response.status).to.equal(400);
      const problem = await problemOf(response);
      expect(problem.code).to.equal('validation_failed');
      const paths = problem.errors?.map((error) => error.path);
      expect(paths).to.have.members(['/query/limit', '/query/colour']);
    });

    it('reports a missing required query parameter', async () => {
      const problem = await problemOf(await fetch(`${server.url}/api/items/search`));
      expect(problem.errors).to.deep.equal([{ path: '/query/q', message: 'is required' }]);
    });

    it('rejects an invalid body with every failing field (no coercion of bodies)', async () => {
      const response = await postJson(`${server.url}/api/items`, {
        quantity: '3',
        kind: 'gadget',
        contact: 'not-an-email',
        extra: true,
      });
      expect(response.status).to.equal(400);
      const problem = await problemOf(response);
      expect(problem.code).to.equal('validation_failed');
      const byPath = Object.fromEntries((problem.errors ?? []).map((error) => [error.path, error.message]));
      expect(byPath).to.deep.include({
        '/body/name': 'is required',
        '/body/quantity': 'must be integer',
        '/body/kind': 'must be equal to constant',
        '/body/contact': 'must match format "email"',
        '/body/extra': 'is not allowed',
      });
    });

    it('rejects a missing required body, naming body', async () => {
      const response = await fetch(`${server.url}/api/items`, { method: 'POST' });
      expect(response.status).to.equal(400);
      const problem = await problemOf(response);
      expect(problem.errors).to.deep.equal([{ path: '/body', message: 'is required' }]);
    });

    it('accepts a missing optional body', async () => {
      const response = await fetch(`${server.url}/api/items/1/reserve`, { method: 'POST' });
      expect(response.status).to.equal(409);
    });

    it('rejects malformed JSON with invalid_json', async () => {
      const response = await fetch(`${server.url}/api/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name": "bolt",',
      });
      expect(response.status).to.equal(400);
      expect((await problemOf(response)).code).to.equal('invalid_json');
    });

    it('rejects a body over the limit with 413', async () => {
      const response = await postJson(`${server.url}/api/items`, { name: 'x'.repeat(5000), quantity: 1 });
      expect(response.status).to.equal(413);
      const problem = await problemOf(response);
      expect(problem.code).to.equal('payload_too_large');
      expect(problem.detail).to.contain('1024');
    });

    it('rejects a chunked body over the limit with 413', async () => {
      const chunk = new TextEncoder().encode(`{"name":"${'y'.repeat(600)}`);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      });
      const response = await fetch(`${server.url}/api/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).to.equal(413);
      expect((await problemOf(response)).code).to.equal('payload_too_large');
    });

    it('rejects a non-JSON body with 415', async () => {
      const response = await fetch(`${server.url}/api/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'name=bolt',
      });
      expect(response.status).to.equal(415);
      expect((await problemOf(response)).code).to.equal('unsupported_media_type');
    });

    it('rejects JSON declared in another charset with 415, and takes UTF-8 however it is spelled', async () => {
      const before = server.items.size;
      for (const charset of ['ISO-8859-1', 'latin1', '"utf-16"']) {
        const response = await fetch(`${server.url}/api/items`, {
          method: 'POST',
          headers: { 'Content-Type': `application/json; charset=${charset}` },
          body: Buffer.from(JSON.stringify({ name: 'caf\u00e9', quantity: 1 }), 'latin1'),
        });
        expect(response.status, charset).to.equal(415);
        const problem = await problemOf(response);
        expect(problem.code).to.equal('unsupported_media_type');
        expect(problem.detail).to.contain(charset.replace(/"/g, '').toLowerCase());
      }
      expect(server.items.size).to.equal(before);
      for (const charset of ['UTF-8', 'utf8', '"utf-8"']) {
        const response = await fetch(`${server.url}/api/items`, {
          method: 'POST',
          headers: { 'Content-Type': `application/json; charset=${charset}` },
          body: JSON.stringify({ name: 'caf\u00e9', quantity: 1 }),
        });
        expect(response.status, charset).to.equal(201);
        expect(((await response.json()) as { name: string }).name).to.equal('caf\u00e9');
      }
    });

    it('accepts a +json media type', async () => {
      const response = await fetch(`${server.url}/api/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/merge-patch+json; charset=utf-8' },
        body: JSON.stringify({ name: 'nut', quantity: 1 }),
      });
      expect(response.status).to.equal(201);
    });
  });

  describe('unmatched requests and errors', () => {
    it('answers an unknown path with a 404 problem', async () => {
      const response = await fetch(`${server.url}/api/nothing-here`);
      expect(response.status).to.equal(404);
      const problem = await problemOf(response);
      expect(problem).to.include({
        code: 'not_found',
        status: 404,
        title: 'Not found',
        instance: '/api/nothing-here',
      });
    });

    it('answers a wrong method on a known path with 405 and Allow', async () => {
      const response = await fetch(`${server.url}/api/items/1`, { method: 'PUT' });
      expect(response.status).to.equal(405);
      const allow = (response.headers.get('allow') ?? '').split(/,\s*/);
      expect(allow).to.include.members(['GET', 'DELETE']);
      expect(allow).not.to.include('PUT');
      expect((await problemOf(response)).code).to.equal('method_not_allowed');
    });

    it('maps a handler HttpProblem to its status with extension members', async () => {
      const response = await postJson(`${server.url}/api/items/1/reserve`, { note: 'asap' });
      expect(response.status).to.equal(409);
      const problem = await problemOf(response);
      expect(problem).to.include({
        code: 'conflict',
        currentState: 'reserved',
        detail: 'Item 1 is already reserved.',
      });
    });

    it('answers HttpProblem.notFound from a handler', async () => {
      const response = await fetch(`${server.url}/api/items/99`);
      expect(response.status).to.equal(404);
      expect((await problemOf(response)).detail).to.equal('Item 99 does not exist.');
    });

    it('hides the message of an internal error and logs it with the request id', async () => {
      const response = await fetch(`${server.url}/api/boom`, { headers: { 'X-Request-Id': 'boom-1' } });
      expect(response.status).to.equal(500);
      const text = await response.text();
      expect(text).not.to.contain('hunter2');
      expect(text).not.to.match(/\.ts:\d+/);
      const problem = JSON.parse(text) as Problem;
      expect(problem.code).to.equal('internal_error');
      expect(response.headers.get('x-request-id')).to.equal('boom-1');
      const logged = server.logLines().find((line) => line.msg === 'http.unhandled_error');
      expect(logged).to.include({ requestId: 'boom-1', level: 50 });
      expect((logged?.err as { message: string }).message).to.contain('hunter2');
    });
  });
});
