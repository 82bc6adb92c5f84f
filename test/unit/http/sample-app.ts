import { captureLogs } from '../../support/logs.js';
import { listen } from '../../support/http.js';
import {
  ComponentRef,
  createHttpApp,
  decodeCursor,
  defineRoute,
  defineRoutes,
  HttpProblem,
  Nullable,
  page,
  pageLimit,
  pageQueryProperties,
  pageSchema,
  problemResponse,
  StrictObject,
  Type,
  type HttpAppOptions,
  type RouteDefinition,
  type Static,
} from '../../../api/http/index.js';

const ItemSchema = StrictObject({
  id: Type.Integer(),
  name: Type.String(),
  quantity: Type.Integer({ minimum: 0 }),
  tags: Type.Optional(Type.Array(Type.String())),
  note: Type.Optional(Nullable(Type.String({ examples: ['fragile'] }))),
});

export type Item = Static<typeof ItemSchema>;

const NewItemSchema = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  quantity: Type.Integer({ minimum: 0 }),
  // A bare `const` (no type), so the document shows the 3.0 form of it: a one-value enum.
  kind: Type.Optional(Type.Unsafe<'widget'>({ const: 'widget' })),
  contact: Type.Optional(Type.String({ format: 'email' })),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
});

const ITEM_REF = ComponentRef('Item', ItemSchema);
const ID_PARAMS = StrictObject({ id: Type.Integer({ minimum: 1, description: 'Item id.' }) });
const LIST_PAGE = { default: 2, max: 50 };
const ItemPage = StrictObject({
  ...pageSchema(ITEM_REF).properties,
  limit: Type.Integer(),
  verbose: Type.Boolean(),
});

export const sampleComponents = { schemas: { Item: ItemSchema, NewItem: NewItemSchema } };

/** A small in-memory item store behind a route table that exercises the kit. */
export function sampleRoutes(items: Map<number, Item>): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/items',
      operationId: 'listItems',
      summary: 'List items',
      tags: ['items'],
      query: StrictObject({ ...pageQueryProperties(LIST_PAGE), verbose: Type.Optional(Type.Boolean()) }),
      responses: { 200: { description: 'A page of items', schema: ItemPage } },
      handler: ({ query }) => {
        const limit = pageLimit(query.limit, LIST_PAGE);
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
      query: Type.Object({ q: Type.String({ minLength: 1 }) }),
      responses: { 200: { description: 'Matches', schema: Type.Array(ITEM_REF) } },
      handler: ({ query }) => ({
        body: [...items.values()].filter((item) => item.name.includes(query.q)),
      }),
    }),
    defineRoute({
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
    defineRoute({
      method: 'POST',
      path: '/api/items',
      operationId: 'createItem',
      summary: 'Create an item',
      tags: ['items'],
      body: ComponentRef('NewItem', NewItemSchema),
      responses: { 201: { description: 'Created', schema: ITEM_REF } },
      handler: ({ body }) => {
        const id = Math.max(0, ...items.keys()) + 1;
        const item = { id, ...body };
        items.set(id, item);
        return { status: 201, body: item, headers: { Location: `/api/items/${id}` } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/items/{id}/reserve',
      operationId: 'reserveItem',
      summary: 'Reserve an item',
      params: ID_PARAMS,
      body: StrictObject({ note: Type.Optional(Type.String()) }),
      bodyRequired: false,
      responses: { 202: { description: 'Reserved' }, 409: problemResponse('Already reserved') },
      handler: ({ params }) => {
        throw HttpProblem.conflict(`Item ${params.id} is already reserved.`, { currentState: 'reserved' });
      },
    }),
    defineRoute({
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
        200: { description: 'Plain text', contentType: 'text/plain', schema: Type.String() },
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
