import { expect } from 'chai';
import { startSampleServer, type RunningServer } from './sample-app.js';

describe('http kit: CORS', () => {
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe('with no origin set (the default): the service is its own only site', () => {
    beforeEach(async () => {
      server = await startSampleServer();
    });

    it('sends no CORS headers to another origin, so its pages cannot read the answers', async () => {
      const response = await fetch(`${server?.url}/api/items`, {
        headers: { Origin: 'http://elsewhere.test' },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
      const preflight = await fetch(`${server?.url}/api/items`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://elsewhere.test', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(null);
      expect(preflight.headers.get('access-control-allow-methods')).to.equal(null);
    });
  });

  describe('with every origin (WEB_UI_ORIGIN=*, the spec default)', () => {
    beforeEach(async () => {
      server = await startSampleServer({ corsOrigin: '*' });
    });

    it('allows any origin without Vary and exposes the request id', async () => {
      const response = await fetch(`${server?.url}/api/items`, {
        headers: { Origin: 'http://elsewhere.test' },
      });
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('access-control-expose-headers')).to.contain('X-Request-Id');
      expect(response.headers.get('vary') ?? '').not.to.contain('Origin');
    });

    it('answers a preflight with 204 and the methods of the path', async () => {
      const response = await fetch(`${server?.url}/api/items/1`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'http://elsewhere.test',
          'Access-Control-Request-Method': 'DELETE',
          'Access-Control-Request-Headers': 'content-type, x-request-id',
        },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      const methods = (response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
      expect(methods).to.include.members(['GET', 'DELETE', 'OPTIONS']);
      expect(methods).not.to.include('POST');
      expect(response.headers.get('access-control-allow-headers')).to.equal('content-type, x-request-id');
      expect(response.headers.get('access-control-max-age')).to.equal('600');
    });

    it('answers a preflight before 404 logic, even for an unknown path', async () => {
      const response = await fetch(`${server?.url}/api/unknown`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://elsewhere.test', 'Access-Control-Request-Method': 'POST' },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-methods')).to.contain('POST');
      expect(response.headers.get('access-control-allow-headers')).to.contain('Content-Type');
    });

    it('puts CORS headers on problem responses too', async () => {
      const response = await fetch(`${server?.url}/api/unknown`, {
        headers: { Origin: 'http://elsewhere.test' },
      });
      expect(response.status).to.equal(404);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    });
  });

  describe('with one configured origin', () => {
    const origin = 'http://localhost:5173';

    beforeEach(async () => {
      server = await startSampleServer({ corsOrigin: origin });
    });

    it('names the origin and varies by Origin', async () => {
      const response = await fetch(`${server?.url}/api/items`, { headers: { Origin: origin } });
      expect(response.status).to.equal(200);
      expect(response.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(response.headers.get('vary')).to.contain('Origin');
    });

    it('answers a preflight with 204 for that origin', async () => {
      const response = await fetch(`${server?.url}/api/items`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(response.headers.get('vary')).to.contain('Origin');
      expect(response.headers.get('access-control-allow-methods')).to.contain('POST');
    });
  });
});
