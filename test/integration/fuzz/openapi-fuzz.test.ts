import { expect } from 'chai';
import fc from 'fast-check';
import { sample } from 'openapi-sampler';
import { startTestCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { fakeAssistants, type FakeAssistantSetup } from '../../support/fake-assistants.js';
import { makeTempRepo, type TempRepo } from '../../support/git-repos.js';
import { captureLogs } from '../../support/logs.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { startTestWorkers, type RunningTestWorkers } from '../../support/temporal.js';

type Schema = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  body?: { schema: Schema; mediaType: string };
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Requests per operation; with a fixed seed the same ones each run. */
const RUNS_PER_OPERATION = 40;
const SEED = 20_261_125;

// Streams answer forever: they are opened and closed, not fuzzed for their body.
const STREAMING = new Set(['streamConversation']);

function operationsOf(document: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = (operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)
        ?.content;
      const [mediaType, media] = Object.entries(content ?? {})[0] ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: String(operation.operationId),
        parameters: (operation.parameters as Operation['parameters'] | undefined) ?? [],
        body: media && mediaType ? { schema: media.schema, mediaType } : undefined,
      });
    }
  }
  return operations;
}

/** A value as the schema wants it (openapi-sampler), or anything at all. */
function valueArbitrary(schema: Schema, document: object, known: string[]): fc.Arbitrary<unknown> {
  const valid = fc.constant(sample(schema as never, { skipReadOnly: true, quiet: true }, document));
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 2, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '..', '../../etc/passwd', '%00', 'x'.repeat(5000), '__proto__'),
    },
  );
}

/** A body: the sampled valid one, it with a field dropped, changed or added, or any JSON or bytes. */
function bodyArbitrary(schema: Schema, document: object, known: string[]): fc.Arbitrary<unknown> {
  const valid = sample(schema as never, { skipReadOnly: true, quiet: true }, document);
  const validObject = typeof valid === 'object' && valid !== null && !Array.isArray(valid);
  const mutated = validObject
    ? fc
        .tuple(
          fc.constantFrom(...Object.keys(valid as object), 'unexpected', '__proto__', 'constructor'),
          valueArbitrary({}, document, known),
          fc.boolean(),
        )
        .map(([key, value, drop]) => {
          const copy: Record<string, unknown> = { ...(valid as Record<string, unknown>) };
          if (drop) delete copy[key];
          else copy[key] = value;
          return copy;
        })
    : fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(valid) },
    { weight: 4, arbitrary: mutated },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function requestArbitrary(base: string, operation: Operation, document: object, known: string[]) {
  const pathParams = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParams = operation.parameters.filter((parameter) => parameter.in === 'query');
  // Path parameters are ids and names: mostly real ones, so requests get past "not found".
  const pathValues = fc.tuple(
    ...pathParams.map((parameter) =>
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...known) },
        { weight: 3, arbitrary: valueArbitrary(parameter.schema, document, known) },
      ),
    ),
  );
  const queryValues = fc.tuple(
    ...queryParams.map((parameter) =>
      fc.option(valueArbitrary(parameter.schema, document, known), { nil: undefined }),
    ),
  );
  const body = operation.body
    ? bodyArbitrary(operation.body.schema, document, known)
    : fc.constant(undefined);
  const rawBody = fc.option(fc.string({ maxLength: 60, unit: 'binary' }), { nil: undefined, freq: 8 });
  return fc
    .tuple(pathValues, queryValues, body, rawBody)
    .map(([pathParts, queryParts, json, raw]): Request => {
      let path = operation.path;
      pathParams.forEach((parameter, index) => {
        path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(pathParts[index])));
      });
      const query = new URLSearchParams();
      queryParams.forEach((parameter, index) => {
        const value = queryParts[index];
        if (value !== undefined)
          query.set(parameter.name, typeof value === 'string' ? value : JSON.stringify(value));
      });
      const search = query.size > 0 ? `?${query}` : '';
      const headers: Record<string, string> = {};
      let sent: string | undefined;
      if (raw !== undefined && operation.body) {
        // Bytes that are not what the route takes, under its own content type.
        headers['Content-Type'] = operation.body.mediaType;
        sent = raw;
      } else if (json !== undefined && operation.body) {
        headers['Content-Type'] = operation.body.mediaType;
        sent =
          operation.body.mediaType === 'application/x-www-form-urlencoded'
            ? new URLSearchParams(
                Object.entries(typeof json === 'object' && json !== null ? json : { value: json }).map(
                  ([key, value]): [string, string] => [key, String(value)],
                ),
              ).toString()
            : JSON.stringify(json);
      }
      return { method: operation.method, url: `${base}${path}${search}`, headers, body: sent };
    });
}

async function send(request: Request): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, type, text: '' };
  }
  return { status: response.status, type, text: await response.text() };
}

describe('every operation of the OpenAPI document, fuzzed against a live server', function () {
  this.timeout(5 * 60_000);
  let test: TestDatabase;
  let workers: RunningTestWorkers;
  let app: TestCoreApp;
  let fakes: FakeAssistantSetup;
  let repo: TempRepo;
  const home = makeTempDir('cairn-fuzz-home-');
  const logs = captureLogs('info');

  before(async () => {
    test = await databaseKinds()[0]!.create();
    fakes = fakeAssistants();
    repo = makeTempRepo({ files: { 'README.md': '# fuzzed\n' } });
    // The webhooks' secrets set: without them the webhooks answer their documented 503 (deny by default).
    const webhookSecrets = { WEBHOOK_SECRET: 'fuzz-secret', GITLAB_WEBHOOK_SECRET: 'fuzz-secret' };
    const context = testServiceContext(test.db, {
      home: home.path,
      env: { ...fakes.env, ...webhookSecrets },
      logger: logs.logger,
    });
    workers = await startTestWorkers(test.db, { dependencies: context });
    app = await startTestCoreApp(test.db, context, workers);
  });
  after(async () => {
    await app?.close();
    await workers?.stop();
    await test?.dispose();
    fakes?.cleanup();
    repo?.cleanup();
    home.cleanup();
  });

  it('answers valid and mutated requests without a 5xx; every refusal is problem+json', async () => {
    const json = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${app.url}${path}`, {
          method,
          headers: { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as Record<string, string>;
    // Real records, so that some requests reach past "not found".
    const codebase = await json('POST', '/api/codebases', { path: repo.path });
    const conversation = await json('POST', '/api/conversations', { codebase_id: codebase.id });
    const known = [
      codebase.id!,
      conversation.id!,
      conversation.platform_conversation_id!,
      'assist',
      repo.path,
    ];

    const document = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Schema>>;
    };
    // Deletions last, so that the records the other operations reach are still there.
    const operations = operationsOf(document).sort(
      (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
    );
    expect(operations.length).to.be.greaterThan(35);
    const failures: string[] = [];
    let sent = 0;
    for (const operation of operations) {
      const requests = STREAMING.has(operation.operationId)
        ? 3
        : operation.method === 'DELETE'
          ? 10
          : RUNS_PER_OPERATION;
      const arbitrary = requestArbitrary(app.url, operation, document, known);
      for (const request of fc.sample(arbitrary, { numRuns: requests, seed: SEED })) {
        const answer = await send(request);
        sent++;
        const where = `${operation.operationId}: ${request.method} ${request.url.slice(app.url.length, 200)} ${request.body?.slice(0, 200) ?? ''}`;
        if (answer.status >= 500) failures.push(`${answer.status} ${where}`);
        else if (
          answer.status >= 400 &&
          !answer.type.startsWith('application/problem+json') &&
          !answer.type.startsWith('text/html')
        )
          failures.push(`${answer.status} without problem+json (${answer.type}) ${where}`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(sent).to.be.greaterThan(1000);
    // The server itself logged no unhandled error.
    const unhandled = logs.lines.filter((line) => line.msg === 'http.unhandled_error');
    expect(unhandled.map((line) => JSON.stringify(line).slice(0, 300))).to.deep.equal([]);
  });
});
