import { expect } from 'chai';
import SwaggerParser from '@apidevtools/swagger-parser';
import { sourceBuildUpdateInfo } from '../../../api/core/update-routes.js';
import { createConversation } from '../../../db/repositories/conversations.js';
import { appendMessage } from '../../../db/repositories/messages.js';
import { createRun, transitionRun } from '../../../db/repositories/workflow-runs.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';

for (const kind of databaseKinds()) {
  const TELEGRAM_READY = {
    status: 'ready' as const,
    detail: '@cairn_bot',
    since: '2026-11-25T08:00:00.000Z',
  };

  describe(`core system endpoints (${kind.name})`, () => {
    let test: TestDatabase;
    let server: TestCoreApp;
    const logs = captureLogs('info');

    const home = makeTempDir('cairn-home-');
    after(() => home.cleanup());

    beforeEach(async () => {
      test = await kind.create();
      server = await startLazyCoreApp(test.db, {
        home: home.path,
        logger: logs.logger,
        version: '9.8.7',
        maxConcurrent: 3,
        adapters: ['web', 'telegram'],
        chatAdapterStates: () => ({ telegram: TELEGRAM_READY }),
        corsOrigin: 'https://ui.example',
        update: sourceBuildUpdateInfo('9.8.7', 'https://example.invalid/cairn/releases'),
        env: { TEMPORAL_UI_URL: 'http://temporal-ui.test:8080' },
      });
    });
    afterEach(async () => {
      await server.close();
      await test.dispose();
    });

    const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

    it('GET /health answers ok', async () => {
      const response = await get('/health');
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ status: 'ok' });
    });

    it('GET /health/db names the database; health answers 503 or degraded when it is gone', async () => {
      const up = await get('/health/db');
      expect(up.status).to.equal(200);
      expect(await up.json()).to.deep.equal({ status: 'ok', database: kind.name });
      await test.db.close();
      const down = await get('/health/db');
      expect(down.status).to.equal(503);
      expect(await down.json()).to.deep.equal({ status: 'error', database: kind.name });
      const concurrency = await get('/health/concurrency');
      expect(concurrency.status).to.equal(503);
      expect(await concurrency.json()).to.include({ status: 'error', maxConcurrent: 3 });
      const health = await get('/api/health');
      expect(health.status).to.equal(200);
      expect(await health.json()).to.include({ status: 'degraded', database: kind.name });
    });

    it('GET /health/concurrency and /api/health count turns and running runs exactly', async () => {
      const { knex } = test.db;
      const conversation = await createConversation(knex, { platform: 'web' });
      for (const turnStatus of ['running', 'running', 'queued', 'completed', 'failed'] as const) {
        await appendMessage(knex, {
          conversationId: conversation.id,
          role: 'user',
          content: 'hi',
          turnStatus,
        });
      }
      await appendMessage(knex, { conversationId: conversation.id, role: 'assistant', content: 'hello' });
      const running = await createRun(knex, { workflowName: 'assist', definition: {} });
      await transitionRun(knex, running.id, ['pending'], 'running');
      await createRun(knex, { workflowName: 'assist', definition: {} });

      const concurrency = await (await get('/health/concurrency')).json();
      expect(concurrency).to.deep.equal({ status: 'ok', active: 2, queued: 1, maxConcurrent: 3 });
      const health = await (await get('/api/health')).json();
      expect(health).to.deep.equal({
        status: 'ok',
        adapter: 'web',
        adapters: ['web', 'telegram'],
        chat: {
          telegram: TELEGRAM_READY,
          discord: { status: 'not_configured' },
          slack: { status: 'not_configured' },
        },
        concurrency: { active: 2, queued: 1, maxConcurrent: 3 },
        runningWorkflows: 1,
        version: '9.8.7',
        database: kind.name,
        temporalUi: 'http://temporal-ui.test:8080',
      });
    });

    it('GET /api/health names no Temporal Web UI for an outside Temporal without TEMPORAL_UI_URL', async () => {
      const outside = await startLazyCoreApp(test.db, {
        home: home.path,
        logger: logs.logger,
        env: { TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_UI_URL: '' },
      });
      try {
        const health = await (await fetch(`${outside.url}/api/health`)).json();
        expect(health).to.include({ temporalUi: null });
      } finally {
        await outside.close();
      }
    });

    it('GET /api/update-check reports a source build without asking anyone', async () => {
      const body = await (await get('/api/update-check')).json();
      expect(body).to.deep.equal({
        updateAvailable: false,
        currentVersion: '9.8.7',
        latestVersion: '9.8.7',
        releaseUrl: 'https://example.invalid/cairn/releases',
        checked: false,
      });
    });

    it('answers unknown paths with 404 and wrong methods with 405, as problem+json', async () => {
      const missing = await get('/api/nothing-here');
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(await missing.json()).to.include({
        status: 404,
        code: 'not_found',
        instance: '/api/nothing-here',
      });

      const wrongMethod = await get('/health', { method: 'POST' });
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get('allow')).to.include('GET');
      expect(await wrongMethod.json()).to.include({ status: 405, code: 'method_not_allowed' });
    });

    it('sends CORS headers for WEB_UI_ORIGIN and answers preflight', async () => {
      const response = await get('/api/health');
      expect(response.headers.get('access-control-allow-origin')).to.equal('https://ui.example');
      const preflight = await get('/api/health', {
        method: 'OPTIONS',
        headers: { origin: 'https://ui.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-methods')).to.include('GET');
    });

    it('serves an OpenAPI 3.0 document that validates and lists every endpoint', async () => {
      const response = await get('/api/openapi.json');
      expect(response.status).to.equal(200);
      const document = (await response.json()) as {
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
      };
      expect(document.openapi).to.match(/^3\.0\./);
      await SwaggerParser.validate(structuredClone(document) as never);
      for (const path of [
        '/health',
        '/health/db',
        '/health/concurrency',
        '/api/health',
        '/api/update-check',
      ]) {
        expect(document.paths[path], path).to.have.property('get');
      }
    });

    it('logs each request with its id and echoes the id', async () => {
      const response = await get('/health', { headers: { 'x-request-id': 'trace-123' } });
      expect(response.headers.get('x-request-id')).to.equal('trace-123');
      await response.text();
      for (let i = 0; i < 50 && !logs.lines.some((l) => l.requestId === 'trace-123'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const line = logs.lines.find((l) => l.requestId === 'trace-123');
      expect(line).to.include({ msg: 'http.request', method: 'GET', path: '/health', status: 200 });
    });
  });
}
