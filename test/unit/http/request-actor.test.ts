import { expect } from 'chai';
import Koa from 'koa';
import type { HttpState } from '../../../api/http/index.js';
import { requestActor } from '../../../api/core/codebases/actor.js';
import { listen, type ListeningApp } from '../../support/http.js';

describe('requestActor (who audit lines name)', () => {
  let server: ListeningApp;
  before(async () => {
    const app = new Koa<HttpState>();
    app.use((ctx) => {
      // What the sign-in sets once it accepted a session (the test sends it as a header).
      const signedIn = ctx.get('x-test-principal');
      if (signedIn) ctx.state.principal = { name: signedIn, via: 'session' };
      ctx.body = requestActor(ctx);
    });
    server = await listen(app);
  });
  after(() => server.close());

  const actor = async (headers: Record<string, string>) => (await fetch(server.url, { headers })).text();

  it('names the signed-in user, and then ignores X-Forwarded-User, which any client can send', async () => {
    expect(await actor({ 'x-test-principal': 'ada', 'x-forwarded-user': 'mallory' })).to.equal('ada');
  });

  it('without sign-in, names the proxy user, else the client address', async () => {
    expect(await actor({ 'x-forwarded-user': 'alice' })).to.equal('alice');
    expect(await actor({ 'x-forwarded-user': 'not a name!' })).to.match(/^anonymous@(::ffff:)?127\.0\.0\.1$/);
    expect(await actor({})).to.match(/^anonymous@(::ffff:)?127\.0\.0\.1$/);
  });
});
