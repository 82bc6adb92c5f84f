import { expect } from 'chai';
import { startSampleServer, waitForLogLine, type RunningServer } from './sample-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('http kit: request ids and request logs', () => {
  let server: RunningServer;

  beforeEach(async () => {
    server = await startSampleServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it('echoes a sane incoming X-Request-Id', async () => {
    const response = await fetch(`${server.url}/api/items`, {
      headers: { 'X-Request-Id': 'client.req-42_A' },
    });
    expect(response.headers.get('x-request-id')).to.equal('client.req-42_A');
  });

  it('generates an id when none is sent', async () => {
    const response = await fetch(`${server.url}/api/items`);
    expect(response.headers.get('x-request-id')).to.match(UUID);
  });

  it('replaces an unsafe or oversized incoming id', async () => {
    for (const bad of ['has space', 'semi;colon', 'x'.repeat(129), '<script>']) {
      const response = await fetch(`${server.url}/api/items`, { headers: { 'X-Request-Id': bad } });
      expect(response.headers.get('x-request-id')).to.match(UUID);
    }
  });

  it('puts the request id on problem responses', async () => {
    const response = await fetch(`${server.url}/api/nowhere`, { headers: { 'X-Request-Id': 'lost-1' } });
    expect(response.status).to.equal(404);
    expect(response.headers.get('x-request-id')).to.equal('lost-1');
  });

  it('writes one http.request line without headers, query strings or bodies', async () => {
    const response = await fetch(`${server.url}/api/items?token=query-secret-789`, {
      method: 'GET',
      headers: {
        'X-Request-Id': 'log-check-1',
        Authorization: 'Bearer header-secret-123',
        Cookie: 'session=cookie-secret-456',
        'User-Agent': 'agent-value-000',
      },
    });
    expect(response.status).to.equal(400);
    await response.text();
    const line = await waitForLogLine(server, (entry) => entry.requestId === 'log-check-1');
    expect(line).to.include({ msg: 'http.request', method: 'GET', path: '/api/items', status: 400 });
    expect(line.durationMs).to.be.a('number');
    const lines = server.logLines().filter((entry) => entry.requestId === 'log-check-1');
    expect(lines).to.have.length(1);
    const text = server.logText();
    for (const secret of ['header-secret-123', 'cookie-secret-456', 'agent-value-000', 'query-secret-789']) {
      expect(text).not.to.contain(secret);
    }
  });

  it('does not log request bodies', async () => {
    await fetch(`${server.url}/api/items`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'log-body-1' },
      body: JSON.stringify({ name: 'body-secret-321', quantity: 1 }),
    });
    const line = await waitForLogLine(server, (entry) => entry.requestId === 'log-body-1');
    expect(line).to.include({ status: 201, method: 'POST' });
    expect(server.logText()).not.to.contain('body-secret-321');
  });
});
