import { captureLogs } from '../../support/logs.js';
import { listen } from '../../support/http.js';
import {
  createHttpApp,
  decodeCursor,
  defineRoute,
  defineRoutes,
  HttpProblem,
  page,
  pageLimit,
  pageQueryProperties,
  pageSchema,
  problemResponse,
  type HttpAppOptions,
  type RouteDefinition,
} from '../../../api/http/index.js';

export interface Item {
  id: number;
  name: string;
  quantity: number;
  tags?: string[];
}

const ITEM_REF = { $ref: '#/components/schemas/Item' };
const ID_PARAMS = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, description: 'Item id.' } },
  required: ['id'],
  additionalProperties: false,
};

export const sampleComponents = {
  schemas: {
    Item: {
      type: 'object',
      required: ['id', 'name', 'quantity'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        quantity: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string' } },
        note: { type: ['string', 'null'], examples: ['fragile'] },
      },
      additionalProperties: false,
    },
    NewItem: {
      type: 'object',
      required: ['name', 'quantity'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        quantity: { type: 'integer', minimum: 0 },
        kind: { const: 'widget' },
        contact: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
      },
      additionalProperties: false,
    },
  },
};

/** A small in-memory item store behind a route table that exercises the kit. */
export function sampleRoutes(items: Map<number, Item>): RouteDefinition[] {
  return defineRoutes(
    defineRoute<{ query: { limit?: number; cursor?: string; verbose?: boolean } }>({
      method: 'GET',
      path: '/api/items',
      operationId: 'listItems',
      summary: 'List items',
      tags: ['items'],
      query: {
        type: 'object',
        properties: { ...pageQueryProperties({ default: 2, max: 50 }), verbose: { type: 'boolean' } },
        additionalProperties: false,
      },
      responses: { 200: { description: 'A page of items', schema: pageSchema(ITEM_REF) } },
      handler: ({ query }) => {
        const limit = pageLimit(query.limit, { default: 2, max: 50 });
        const after = query.cursor === undefined ? 0 : (decodeCursor(query.cursor, ['number'])[0] as number);
        const rows = [...items.values()].filter((item) => item.id > after).slice(0, limit + 1);
        return {
          body: { ...page(rows, limit, (item) => [item.id]), limit, verbose: query.verbose ?? false },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/items/search',
      operationId: 'searchItems',
      summary: 'Search items by name',
      tags: ['items'],
      query: {
        type: 'object',
        properties: { q: { type: 'string', minLength: 1 } },
        required: ['q'],
      },
      responses: { 200: { description: 'Matches', schema: { type: 'array', items: ITEM_REF } } },
      handler: ({ query }) => ({
        body: [...items.values()].filter((item) => item.name.includes(String(query.q))),
      }),
    }),
    defineRoute<{ params: { id: number } }>({
      method: 'GET',
      path: '/api/items/{id}',
      operationId: 'getItem',
      summary: 'Get one item',
      tags: ['items'],
      params: ID_PARAMS,
      responses: { 200: { description: 'The item', schema: ITEM_REF } },
      handler: ({ params }) => {
        const item = items.get(params.id);
        if (!item) throw HttpProblem.notFound(`Item ${params.id} does not exist.`);
        return { body: item };
      },
    }),
    defineRoute<{ body: Omit<Item, 'id'> }>({
      method: 'POST',
      path: '/api/items',
      operationId: 'createItem',
      summary: 'Create an item',
      tags: ['items'],
      body: { $ref: '#/components/schemas/NewItem' },
      responses: { 201: { description: 'Created', schema: ITEM_REF } },
      handler: ({ body }) => {
        const id = Math.max(0, ...items.keys()) + 1;
        const item = { id, ...body };
        items.set(id, item);
        return { status: 201, body: item, headers: { Location: `/api/items/${id}` } };
      },
    }),
    defineRoute<{ params: { id: number }; body?: { note?: string } }>({
      method: 'POST',
      path: '/api/items/{id}/reserve',
      operationId: 'reserveItem',
      summary: 'Reserve an item',
      params: ID_PARAMS,
      body: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
      bodyRequired: false,
      responses: { 202: { description: 'Reserved' }, 409: problemResponse('Already reserved') },
      handler: ({ params }) => {
        throw HttpProblem.conflict(`Item ${params.id} is already reserved.`, { currentState: 'reserved' });
      },
    }),
    defineRoute<{ params: { id: number } }>({
      method: 'DELETE',
      path: '/api/items/{id}',
      operationId: 'deleteItem',
      summary: 'Delete an item',
      tags: ['items'],
      params: ID_PARAMS,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ params }) => {
        if (!items.delete(params.id)) throw HttpProblem.notFound(`Item ${params.id} does not exist.`);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/boom',
      operationId: 'boom',
      summary: 'Always fails',
      responses: { 200: { description: 'Never' } },
      handler: () => {
        throw new Error('database password is hunter2');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/raw',
      operationId: 'raw',
      summary: 'Writes the response itself',
      responses: {
        200: { description: 'Plain text', contentType: 'text/plain', schema: { type: 'string' } },
      },
      handler: ({ ctx }) => {
        ctx.type = 'text/plain';
        ctx.body = 'written by the handler';
      },
    }),
  );
}

export interface RunningServer {
  url: string;
  logLines: () => Array<Record<string, unknown>>;
  logText: () => string;
  items: Map<number, Item>;
  close: () => Promise<void>;
}

export function seedItems(count: number): Map<number, Item> {
  const items = new Map<number, Item>();
  for (let id = 1; id <= count; id += 1) items.set(id, { id, name: `item-${id}`, quantity: id * 10 });
  return items;
}

/** Starts the sample app on an ephemeral 127.0.0.1 port, capturing its log lines. */
export async function startSampleServer(overrides: Partial<HttpAppOptions> = {}): Promise<RunningServer> {
  const logs = captureLogs('info');
  const items = seedItems(5);
  const app = createHttpApp({
    title: 'Sample',
    version: '1.0.0',
    routes: sampleRoutes(items),
    components: sampleComponents,
    logger: logs.logger,
    bodyLimitBytes: 1024,
    openapiPaths: ['/api/openapi.json', '/api/v1/docs/openapi.yaml'],
    ...overrides,
  });
  const server = await listen(app);
  return {
    url: server.url,
    items,
    logText: logs.text,
    logLines: () => logs.lines,
    close: server.close,
  };
}

/** Waits for a log line matching `predicate`; the request line is written when the socket closes. */
export async function waitForLogLine(
  server: RunningServer,
  predicate: (line: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const line = server.logLines().find(predicate);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('log line did not appear');
}
