import { expect } from 'chai';
import {
  createHttpApp,
  defineRoute,
  defineRoutes,
  SerializedJson,
  serializedOnce,
} from '../../../api/http/index.js';
import { listen, type ListeningApp } from '../../support/http.js';
import { captureLogs } from '../../support/logs.js';
import { jsonClient } from '../../support/json-client.js';

const THING = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    colour: { type: 'string', default: 'red' },
  },
  additionalProperties: false,
};

/** A route whose answer is whatever the test puts in `answer`. */
function appAnswering(answer: { body: unknown; status?: number }, validateResponses: boolean) {
  const logs = captureLogs();
  const app = createHttpApp({
    title: 'responses',
    version: '1.0.0',
    logger: logs.logger,
    validateResponses,
    routes: defineRoutes(
      defineRoute({
        method: 'GET',
        path: '/thing',
        operationId: 'getThing',
        summary: 'a thing',
        responses: { 200: { description: 'the thing', schema: THING } },
        handler: () => ({ status: answer.status, body: answer.body }),
      }),
    ),
  });
  return { app, logs };
}

describe('http kit: response validation', () => {
  let server: ListeningApp | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(answer: { body: unknown; status?: number }, validateResponses = true) {
    const { app, logs } = appAnswering(answer, validateResponses);
    server = await listen(app);
    return { call: jsonClient(server.url), logs };
  }

  it('passes an answer its schema describes, unchanged (no defaults filled in)', async () => {
    const { call } = await serve({ body: { id: 1, name: 'one' } });
    const answer = await call('GET', '/thing');
    expect(answer).to.deep.equal({ status: 200, body: { id: 1, name: 'one' } });
  });

  it('turns a drifted answer into a 500 whose log names the fields', async () => {
    const { call, logs } = await serve({ body: { id: 'one', extra: true } });
    const answer = await call<{ code: string }>('GET', '/thing');
    expect(answer.status).to.equal(500);
    expect(answer.body.code).to.equal('internal_error');
    const logged = logs.text();
    expect(logged).to.include('route getThing answered 200 with a body its schema does not allow');
    expect(logged).to.include('/response/id must be integer');
    expect(logged).to.include('/response/name is required');
    expect(logged).to.include('/response/extra is not allowed');
  });

  it('refuses a status the route does not document', async () => {
    const { call, logs } = await serve({ body: { id: 1, name: 'one' }, status: 201 });
    expect((await call('GET', '/thing')).status).to.equal(500);
    expect(logs.text()).to.include('answered 201, a status its responses do not list');
  });

  it('sends a serialized body as JSON and validates it like a value', async () => {
    const { call } = await serve({ body: new SerializedJson('{"id":1,"name":"one"}') });
    const answer = await call('GET', '/thing');
    expect(answer).to.deep.equal({ status: 200, body: { id: 1, name: 'one' } });
    const sent = await fetch(`${server!.url}/thing`);
    expect(sent.headers.get('content-type')).to.equal('application/json; charset=utf-8');

    await server!.close();
    const drifted = await serve({ body: new SerializedJson('{"id":"one"}') });
    expect((await drifted.call('GET', '/thing')).status).to.equal(500);
    expect(drifted.logs.text()).to.include('/response/name is required');
  });

  it('serializes a shared value once, and again only for a new value', () => {
    let builds = 0;
    const body = serializedOnce((source: { names: string[] }) => {
      builds += 1;
      return { count: source.names.length };
    });
    const shared = { names: ['a', 'b'] };
    expect(body(shared).text).to.equal('{"count":2}');
    expect(body(shared)).to.equal(body(shared));
    expect(builds).to.equal(1);
    expect(body({ names: ['c'] }).text).to.equal('{"count":1}');
    expect(builds).to.equal(2);
  });

  it('sends a shared body as its kept UTF-8 bytes, with their length and JSON type', async () => {
    const shared = serializedOnce((source: { name: string }) => ({ id: 7, name: source.name }));
    const body = shared({ name: 'Zoë — 漢字 ✓' });
    expect(body.payload).to.be.instanceOf(Buffer);
    expect((body.payload as Buffer).toString('utf8')).to.equal(body.text);
    await serve({ body });
    const sent = await fetch(`${server!.url}/thing`);
    const bytes = Buffer.from(await sent.arrayBuffer());
    expect(sent.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(sent.headers.get('content-length'))).to.equal(Buffer.byteLength(body.text));
    expect(JSON.parse(bytes.toString('utf8'))).to.deep.equal({ id: 7, name: 'Zoë — 漢字 ✓' });
  });

  it('checks nothing when it is off (production default)', async () => {
    const { call } = await serve({ body: { id: 'one' } }, false);
    expect(await call('GET', '/thing')).to.deep.equal({ status: 200, body: { id: 'one' } });
  });
});
