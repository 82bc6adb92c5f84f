import { expect } from 'chai';
import type { HttpAppOptions } from '../../../api/http/index.js';
import { rawRequest } from '../../support/http.js';
import { startSampleServer, type RunningServer } from './sample-app.js';

const NEW_ITEM = JSON.stringify({ name: 'lamp', quantity: 1 });

describe('http kit: which sites may drive the service', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(overrides: Partial<HttpAppOptions> = {}) {
    server = await startSampleServer(overrides);
    const port = new URL(server.url).port;
    const call = (method: string, headers: Record<string, string>, path = '/api/items') =>
      rawRequest(`${server!.url}${path}`, {
        method,
        headers: method === 'POST' ? { 'Content-Type': 'application/json', ...headers } : headers,
        body: method === 'POST' ? NEW_ITEM : undefined,
      });
    return { port, call };
  }

  describe('the Host header (DNS rebinding)', () => {
    it('answers loopback names and IP addresses', async () => {
      const { port, call } = await serve();
      for (const host of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::1]:${port}`,
        'app.localhost',
        '192.168.1.20:80',
        'LOCALHOST.',
      ]) {
        expect((await call('GET', { Host: host })).status, host).to.equal(200);
      }
    });

    it('refuses another name with 403 problem+json, before anything runs', async () => {
      const { call } = await serve();
      const before = server!.items.size;
      for (const host of [
        'evil.example',
        'evil.example:3090',
        'localhost.evil.example',
        '127.0.0.1.nip.io',
      ]) {
        const answer = await call('POST', { Host: host });
        expect(answer.status, host).to.equal(403);
        expect(answer.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(JSON.parse(answer.body)).to.include({ code: 'host_not_allowed', status: 403 });
      }
      expect(server!.items.size).to.equal(before);
    });

    it('answers names it is told, and any name with *', async () => {
      const { call } = await serve({ allowedHosts: ['cairn.internal', 'Box'] });
      expect((await call('GET', { Host: 'cairn.internal:3090' })).status).to.equal(200);
      expect((await call('GET', { Host: 'box' })).status).to.equal(200);
      expect((await call('GET', { Host: 'other.internal' })).status).to.equal(403);
      await server!.close();
      const open = await serve({ allowedHosts: ['*'] });
      expect((await open.call('GET', { Host: 'anything.example' })).status).to.equal(200);
    });
  });

  describe('state changes from other sites (cross-site requests)', () => {
    it('refuses a change whose Origin is another site, and changes nothing', async () => {
      const { call } = await serve();
      const before = server!.items.size;
      for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:1', 'file://']) {
        const answer = await call('POST', { Origin: origin });
        expect(answer.status, origin).to.equal(403);
        expect(JSON.parse(answer.body)).to.include({ code: 'cross_site_request' });
        expect((await call('DELETE', { Origin: origin }, '/api/items/1')).status).to.equal(403);
      }
      expect(server!.items.size).to.equal(before);
    });

    it("takes changes from the service's own pages and from clients that send no Origin", async () => {
      const { port, call } = await serve();
      expect((await call('POST', { Origin: `http://127.0.0.1:${port}` })).status).to.equal(201);
      expect((await call('POST', {})).status).to.equal(201);
      // Reads from another site are answered, but without CORS headers the browser hides them.
      const read = await call('GET', { Origin: 'http://evil.example' });
      expect(read.status).to.equal(200);
      expect(read.headers['access-control-allow-origin']).to.equal(undefined);
    });

    it('takes changes from WEB_UI_ORIGIN when it names one, and from every origin with *', async () => {
      const { call } = await serve({ corsOrigin: 'http://localhost:5173' });
      expect((await call('POST', { Origin: 'http://localhost:5173' })).status).to.equal(201);
      expect((await call('POST', { Origin: 'http://evil.example' })).status).to.equal(403);
      await server!.close();
      const open = await serve({ corsOrigin: '*' });
      expect((await open.call('POST', { Origin: 'http://evil.example' })).status).to.equal(201);
    });

    it('never grants access to the private network, even to every origin', async () => {
      const { call } = await serve({ corsOrigin: '*' });
      const preflight = await call('OPTIONS', {
        Origin: 'http://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Private-Network': 'true',
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers['access-control-allow-private-network']).to.equal(undefined);
    });
  });
});
