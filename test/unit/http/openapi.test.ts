import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import YAML from 'yaml';
import { buildOpenApiDocument, toOpenApiSchema, type OpenApiDocument } from '../../../api/http/index.js';
import {
  sampleComponents,
  sampleRoutes,
  seedItems,
  startSampleServer,
  type RunningServer,
} from './sample-app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function sampleDocument(): OpenApiDocument {
  return buildOpenApiDocument({
    title: 'Sample',
    version: '1.0.0',
    servers: [{ url: 'http://localhost:3090' }],
    routes: sampleRoutes(seedItems(1)),
    components: sampleComponents,
  });
}

describe('http kit: OpenAPI', () => {
  it('generates a document that validates as OpenAPI 3.0.3', async () => {
    const document = sampleDocument();
    expect(document.openapi).to.equal('3.0.3');
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  it('describes operations, parameters, bodies and responses from the route table', () => {
    const paths = sampleDocument().paths as Json;
    expect(Object.keys(paths)).to.have.members([
      '/api/items',
      '/api/items/search',
      '/api/items/{id}',
      '/api/items/{id}/reserve',
      '/api/boom',
      '/api/raw',
    ]);
    const list = paths['/api/items'].get;
    expect(list.operationId).to.equal('listItems');
    expect(list.tags).to.deep.equal(['items']);
    const limit = list.parameters.find((parameter: Json) => parameter.name === 'limit');
    expect(limit).to.deep.include({ in: 'query', required: false, description: 'Page size.' });
    expect(limit.schema).to.deep.include({ type: 'integer', maximum: 50, default: 2 });

    const search = paths['/api/items/search'].get.parameters[0];
    expect(search).to.include({ name: 'q', in: 'query', required: true });

    const get = paths['/api/items/{id}'].get;
    expect(get.parameters).to.deep.equal([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Item id.',
        schema: { type: 'integer', minimum: 1 },
      },
    ]);
    expect(get.responses['200'].content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Item',
    });
    expect(get.responses['404']).to.deep.equal({ $ref: '#/components/responses/NotFound' });

    const create = paths['/api/items'].post;
    expect(create.requestBody).to.deep.equal({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewItem' } } },
    });
    expect(Object.keys(create.responses)).to.have.members(['201', '400', '403', '413', '415', '500']);

    const reserve = paths['/api/items/{id}/reserve'].post;
    expect(reserve.requestBody.required).to.equal(false);
    expect(reserve.responses['409'].content['application/problem+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Problem',
    });
    expect(paths['/api/raw'].get.responses['200'].content).to.have.key('text/plain');
  });

  it('describes the Problem schema and standard responses once, as components', () => {
    const components = sampleDocument().components as Json;
    expect(components.schemas.Problem.required).to.include.members([
      'type',
      'title',
      'status',
      'detail',
      'code',
    ]);
    expect(components.responses.BadRequest.content['application/problem+json'].schema).to.deep.equal({
      $ref: '#/components/schemas/Problem',
    });
    expect(components.schemas.Item.properties.note).to.deep.equal({
      type: 'string',
      nullable: true,
      example: 'fragile',
    });
    expect(components.schemas.NewItem.properties.kind).to.deep.equal({ enum: ['widget'] });
  });

  it('converts JSON Schema keywords to the 3.0 dialect', () => {
    expect(
      toOpenApiSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          a: { type: ['integer', 'null'], exclusiveMinimum: 0 },
          b: { const: 3 },
          c: { $ref: '#/components/schemas/Item', description: 'An item.' },
          d: { type: ['string', 'integer'] },
        },
      }),
    ).to.deep.equal({
      type: 'object',
      properties: {
        a: { type: 'integer', nullable: true, minimum: 0, exclusiveMinimum: true },
        b: { enum: [3] },
        c: { description: 'An item.', allOf: [{ $ref: '#/components/schemas/Item' }] },
        d: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    expect(() => toOpenApiSchema({ type: 'object', patternProperties: {} })).to.throw(/patternProperties/);
  });

  describe('served', () => {
    let server: RunningServer;

    beforeEach(async () => {
      server = await startSampleServer();
    });

    afterEach(async () => {
      await server.close();
    });

    it('serves the JSON document', async () => {
      const response = await fetch(`${server.url}/api/openapi.json`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      const document = (await response.json()) as Json;
      expect(document.paths['/api/items/{id}'].delete.operationId).to.equal('deleteItem');
      expect(document.paths).not.to.have.property('/api/openapi.json');
    });

    it('serves the YAML variant with the same content', async () => {
      const response = await fetch(`${server.url}/api/v1/docs/openapi.yaml`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/yaml/);
      const parsed = YAML.parse(await response.text()) as Json;
      const json = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
      expect(parsed).to.deep.equal(json);
      await SwaggerParser.validate(parsed as never);
    });

    it('answers other methods on the document path with 405', async () => {
      const response = await fetch(`${server.url}/api/openapi.json`, { method: 'POST' });
      expect(response.status).to.equal(405);
    });
  });
});
