import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../../config/logger.js';
import {
  ComponentRef,
  createHttpApp,
  HttpProblem,
  toHttpProblem,
  Type,
  type RouteDefinition,
} from '../../../api/http/index.js';
import { normalizeRoutes, toRouterPath } from '../../../api/http/route.js';
import { startSampleServer, waitForLogLine } from './sample-app.js';

const silent = createLogger({ level: 'silent' });

/** A route of any shape, broken on purpose by the overrides: registration is what is checked. */
function route(overrides: Partial<RouteDefinition>): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/things',
    operationId: 'listThings',
    summary: 'List things',
    responses: { 200: { description: 'OK' } },
    handler: () => ({ body: [] }),
    ...overrides,
  };
}

function build(routes: RouteDefinition[]): void {
  createHttpApp({ title: 'T', version: '1', routes, logger: silent });
}

describe('http kit: registration checks', () => {
  it('translates OpenAPI paths to router paths, escaping reserved characters', () => {
    expect(toRouterPath('/api/codebases/{id}/environments')).to.equal('/api/codebases/:id/environments');
    expect(toRouterPath('/api/stream/{conversation-id}')).to.equal('/api/stream/:"conversation-id"');
    expect(toRouterPath('/api/v1/things(1)')).to.equal('/api/v1/things\\(1\\)');
  });

  it('derives string path parameters when no params schema is given', () => {
    const [normalized] = normalizeRoutes([route({ path: '/api/things/{name}' })]);
    expect(normalized?.params).to.deep.equal({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    });
  });

  it('refuses a params schema that does not match the path', () => {
    const params = Type.Object({ slug: Type.String() });
    expect(() => build([route({ path: '/api/things/{id}', params })])).to.throw(
      /exactly the path parameters/,
    );
  });

  it('refuses a body on GET and DELETE', () => {
    expect(() => build([route({ body: Type.Object({}) })])).to.throw(/cannot take a body/);
  });

  it('refuses duplicate operationIds and endpoints', () => {
    expect(() => build([route({}), route({ path: '/api/other' })])).to.throw(/duplicate operationId/);
    expect(() =>
      build([route({ path: '/a/{x}' }), route({ path: '/a/{y}', operationId: 'other' })]),
    ).to.throw(/duplicate route/);
  });

  it('fails at start-up on an unknown format or an unknown component', () => {
    const query = Type.Object({ at: Type.String({ format: 'no-such-format' }) });
    expect(() => build([route({ query })])).to.throw(/invalid query schema for route listThings/);
    const body = ComponentRef('Missing', Type.Object({}));
    expect(() => build([route({ method: 'POST', body })])).to.throw(/invalid body schema/);
  });

  it('maps exposed 4xx errors from other libraries and hides everything else', () => {
    const forbidden = Object.assign(new Error('not yours'), { status: 403, expose: true });
    expect(toHttpProblem(forbidden)).to.include({ status: 403, code: 'forbidden', detail: 'not yours' });
    const hidden = Object.assign(new Error('pool exhausted'), { status: 503, expose: false });
    expect(toHttpProblem(hidden)).to.include({ status: 500, code: 'internal_error' });
    expect(toHttpProblem('a string')).to.include({ status: 500 });
    const conflict = HttpProblem.conflict('busy', { status: 200, retryable: true }).toDocument('/x');
    expect(conflict).to.include({ status: 409, retryable: true, instance: '/x' });
  });

  it('lets a handler stream its own response (the escape hatch SSE will use)', async () => {
    const streaming = route({
      path: '/api/events',
      operationId: 'events',
      responses: { 200: { description: 'Events', contentType: 'text/event-stream' } },
      handler: ({ ctx }) => {
        const stream = new PassThrough();
        ctx.type = 'text/event-stream';
        ctx.body = stream;
        stream.write('id: 1\ndata: {"type":"first"}\n\n');
        setTimeout(() => stream.end('id: 2\ndata: {"type":"last"}\n\n'), 20);
      },
    });
    const server = await startSampleServer({ routes: [streaming] });
    try {
      const response = await fetch(`${server.url}/api/events`, { headers: { 'X-Request-Id': 'stream-1' } });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
      const text = await response.text();
      expect(text).to.contain('id: 1').and.to.contain('id: 2');
      const line = await waitForLogLine(server, (entry) => entry.requestId === 'stream-1');
      expect(line).to.include({ msg: 'http.request', status: 200 });
      expect(line.durationMs).to.be.a('number');
    } finally {
      await server.close();
    }
  });
});
