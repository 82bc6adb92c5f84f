import { expect } from 'chai';
import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync } from 'node:fs';
import type { SignInSettings } from '../../../config/sign-in-settings.js';
import { hashPassword } from '../../../infra/crypto/password-hash.js';
import { SignIn, SIGN_IN_ATTEMPTS } from '../../../services/auth/sign-in.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const USERNAME = 'ada';
const PASSWORD = 'correct horse battery staple';
const API_TOKEN = 'tok_'.padEnd(48, '7');
const COOKIE_SECRET = Buffer.alloc(32, 9);

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => Record<string, unknown>;
}

/** The `name=value` part of each Set-Cookie header. */
function cookiesSet(headers: Headers): string[] {
  return headers.getSetCookie();
}

function cookieValue(headers: Headers): string {
  const line = cookiesSet(headers).find((cookie) => /^(__Host-)?cairn_session=./.test(cookie));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(cookiesSet(headers))}`);
  return line.split(';')[0]!;
}

for (const kind of databaseKinds()) {
  describe(`sign-in (${kind.name})`, function () {
    this.timeout(20_000);
    let test: TestDatabase;
    let server: TestCoreApp | undefined;
    let passwordHash: string;
    let now = Date.now();
    const logs = captureLogs('debug');
    const home = makeTempDir('cairn-home-');
    after(() => home.cleanup());

    before(async () => {
      passwordHash = await hashPassword(PASSWORD);
    });

    const settings = (overrides: Partial<SignInSettings> = {}): SignInSettings => ({
      mode: 'form',
      form: { username: USERNAME, passwordHash, cookieSecret: COOKIE_SECRET, cookieMaxAgeSeconds: 3600 },
      apiToken: API_TOKEN,
      trustProxy: true,
      ...overrides,
    });

    async function start(signIn: SignInSettings = settings(), corsOrigin?: string): Promise<void> {
      await server?.close();
      server = undefined;
      server = await startLazyCoreApp(test.db, {
        home: home.path,
        logger: logs.logger,
        corsOrigin,
        signIn: new SignIn(test.db.knex, signIn, () => now),
      });
    }

    beforeEach(async () => {
      now = Date.now();
      test = await kind.create();
      await start();
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
      await test.dispose();
    });

    // Each test signs in from its own address (TRUST_PROXY is on), so the per-address limit of
    // one test never meets another's.
    let client = 0;
    beforeEach(() => {
      client++;
    });

    async function call(
      method: string,
      path: string,
      init: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { 'X-Forwarded-For': `10.0.0.${client}`, ...init.headers };
      let body: string | undefined;
      if (init.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(init.json);
      } else if (init.form !== undefined) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(init.form).toString();
      }
      const response = await fetch(`${server!.url}${path}`, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
    }

    const signInWith = (username: string, password: string, headers?: Record<string, string>) =>
      call('POST', '/api/auth/login', { json: { username, password }, headers });

    async function signedInCookie(): Promise<string> {
      const answer = await signInWith(USERNAME, PASSWORD);
      expect(answer.status, answer.text).to.equal(200);
      return cookieValue(answer.headers);
    }

    it('keeps the probes and the sign-in routes open, and everything else closed', async () => {
      for (const path of ['/health', '/health/db', '/health/concurrency', '/api/auth/session', '/login'])
        expect((await call('GET', path)).status, path).to.equal(200);

      const state = await call('GET', '/api/auth/session');
      expect(state.json()).to.deep.equal({
        signInRequired: true,
        passwordSignIn: true,
        signedIn: false,
        user: null,
        via: null,
        expiresAt: null,
      });

      for (const [method, path] of [
        ['GET', '/api/conversations'],
        ['GET', '/api/health'],
        ['GET', '/api/openapi.json'],
        ['GET', '/api/stream/__dashboard__'],
        ['GET', '/api/nothing-here'],
        ['DELETE', '/api/codebases/x'],
      ] as const) {
        const answer = await call(method, path);
        expect(answer.status, `${method} ${path}`).to.equal(401);
        expect(answer.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(answer.headers.get('www-authenticate')).to.equal('Bearer realm="cairn"');
        expect(answer.json()).to.include({ code: 'authentication_required', status: 401 });
      }
    });

    it('refuses an anonymous write before reading its body, and stores nothing', async () => {
      const refused = await call('POST', '/api/conversations', { json: {} });
      expect(refused.status).to.equal(401);
      const list = await call('GET', '/api/conversations', {
        headers: { Authorization: `Bearer ${API_TOKEN}` },
      });
      expect(list.status).to.equal(200);
      expect(list.json()).to.deep.equal([]);
    });

    it('takes the API token as a bearer token, and nothing like it', async () => {
      const bearer = (value: string) =>
        call('GET', '/api/conversations', { headers: { Authorization: value } });
      expect((await bearer(`Bearer ${API_TOKEN}`)).status).to.equal(200);
      expect((await bearer(`bearer   ${API_TOKEN}`)).status).to.equal(200);
      expect((await bearer(`Bearer ${API_TOKEN}x`)).status).to.equal(401);
      expect((await bearer(`Bearer ${API_TOKEN.slice(0, -1)}`)).status).to.equal(401);
      expect((await bearer(`Basic ${Buffer.from(`x:${API_TOKEN}`).toString('base64')}`)).status).to.equal(
        401,
      );
      expect((await bearer('Bearer')).status).to.equal(401);

      const session = await call('GET', '/api/auth/session', {
        headers: { Authorization: `Bearer ${API_TOKEN}` },
      });
      expect(session.json()).to.include({ signedIn: true, user: 'api-token', via: 'token', expiresAt: null });
    });

    it('signs in with the password: an HttpOnly, SameSite=Lax cookie that opens the API and the streams', async () => {
      const answer = await signInWith(USERNAME, PASSWORD);
      expect(answer.status).to.equal(200);
      const body = answer.json();
      expect(body.username).to.equal(USERNAME);
      expect(Date.parse(String(body.expiresAt)) - now).to.equal(3600_000);

      const [line] = cookiesSet(answer.headers);
      expect(line).to.match(/^cairn_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; /);
      expect(line).to.include('Path=/').and.include('Max-Age=3600').and.include('HttpOnly');
      expect(line).to.include('SameSite=Lax').and.not.include('Secure');

      const cookie = cookieValue(answer.headers);
      expect((await call('GET', '/api/conversations', { headers: { Cookie: cookie } })).status).to.equal(200);
      const created = await call('POST', '/api/conversations', { json: {}, headers: { Cookie: cookie } });
      expect(created.status).to.equal(201);

      const stream = await fetch(`${server!.url}/api/stream/__dashboard__`, { headers: { Cookie: cookie } });
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      await stream.body?.cancel();

      const state = await call('GET', '/api/auth/session', { headers: { Cookie: cookie } });
      expect(state.json()).to.deep.include({ signedIn: true, user: USERNAME, via: 'session' });
      expect(state.json().expiresAt).to.equal(body.expiresAt);
    });

    it('answers a wrong username exactly as a wrong password, and never names which', async () => {
      const wrongUser = await signInWith('grace', PASSWORD);
      const wrongPassword = await signInWith(USERNAME, 'incorrect horse');
      const both = await signInWith('grace', 'incorrect horse');
      for (const answer of [wrongUser, wrongPassword, both]) {
        expect(answer.status).to.equal(401);
        expect(cookiesSet(answer.headers)).to.deep.equal([]);
      }
      expect(wrongUser.json()).to.deep.equal(wrongPassword.json());
      expect(both.json()).to.deep.equal(wrongPassword.json());
      expect(wrongPassword.json()).to.include({
        code: 'sign_in_failed',
        detail: 'The username or password is wrong.',
      });
    });

    it('refuses the sixth try from one address within a minute with 429 and Retry-After, even a right one', async () => {
      for (let i = 0; i < SIGN_IN_ATTEMPTS.limit; i++)
        expect((await signInWith(USERNAME, `wrong ${i}`)).status).to.equal(401);
      now += 10_000;
      const sixth = await signInWith(USERNAME, PASSWORD);
      expect(sixth.status).to.equal(429);
      expect(sixth.json()).to.include({ code: 'too_many_sign_in_attempts' });
      expect(sixth.headers.get('retry-after')).to.equal('50');
      expect(cookiesSet(sixth.headers)).to.deep.equal([]);

      // Addresses a client writes in front of the proxy's own do not give it a fresh limit.
      const spoofed = await signInWith(USERNAME, PASSWORD, {
        'X-Forwarded-For': `198.51.100.7, 10.0.0.${client}`,
      });
      expect(spoofed.status).to.equal(429);

      // Another address is not held back by this one.
      const elsewhere = await signInWith(USERNAME, PASSWORD, { 'X-Forwarded-For': '192.0.2.44' });
      expect(elsewhere.status).to.equal(200);

      // Once the minute has passed, the first address may try again.
      now += 61_000;
      expect((await signInWith(USERNAME, PASSWORD)).status).to.equal(200);
    });

    it('ends the session on sign-out: the same cookie no longer opens anything', async () => {
      const cookie = await signedInCookie();
      const out = await call('POST', '/api/auth/logout', { headers: { Cookie: cookie } });
      expect(out.status).to.equal(204);
      expect(cookiesSet(out.headers)[0]).to.match(/^cairn_session=; Path=\/; Max-Age=0; /);
      expect((await call('GET', '/api/conversations', { headers: { Cookie: cookie } })).status).to.equal(401);
      // Signing out again, or without any session, is harmless.
      expect((await call('POST', '/api/auth/logout', { headers: { Cookie: cookie } })).status).to.equal(204);
      expect((await call('POST', '/api/auth/logout')).status).to.equal(204);
    });

    it('sends a page with a forged, foreign or expired cookie to the sign-in page, and an API call a 401, never a 500', async () => {
      const cookie = await signedInCookie();
      const [name, value] = cookie.split('=') as [string, string];
      const [id, signature] = value.split('.') as [string, string];
      const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
      const bad = [
        `${name}=${id}.${flipped}`,
        `${name}=${id}`,
        `${name}=${'x'.repeat(43)}.${signature}`,
        `${name}=a.b.c`,
        `${name}=%ff%fe`,
        `${name}=${'y'.repeat(5000)}`,
      ];
      for (const forged of bad) {
        const page = await call('GET', '/', { headers: { Cookie: forged, Accept: 'text/html' } });
        expect(page.status, forged).to.equal(303);
        expect(page.headers.get('location')).to.equal('/login?next=%2F');
        // The cookie that failed is dropped.
        expect(cookiesSet(page.headers)[0]).to.match(/^cairn_session=; /);
        const api = await call('GET', '/api/conversations', { headers: { Cookie: forged } });
        expect(api.status, forged).to.equal(401);
      }

      now += 3600_000;
      const expired = await call('GET', '/runs?tab=1', { headers: { Cookie: cookie, Accept: 'text/html' } });
      expect(expired.status).to.equal(303);
      expect(expired.headers.get('location')).to.equal('/login?next=%2Fruns%3Ftab%3D1');
      expect((await call('GET', '/api/conversations', { headers: { Cookie: cookie } })).status).to.equal(401);
    });

    it('ends every session when the password hash or the cookie secret changes', async () => {
      const cookie = await signedInCookie();
      await start(
        settings({ form: { ...settings().form!, passwordHash: await hashPassword('a new password') } }),
      );
      expect((await call('GET', '/api/conversations', { headers: { Cookie: cookie } })).status).to.equal(401);

      await start();
      const again = await signedInCookie();
      await start(settings({ form: { ...settings().form!, cookieSecret: Buffer.alloc(32, 1) } }));
      expect((await call('GET', '/api/conversations', { headers: { Cookie: again } })).status).to.equal(401);
    });

    it('signs in from the HTML form and returns to the page asked for, never to another site', async () => {
      const page = await call('GET', '/login?next=%2Fruns');
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).to.include("frame-ancestors 'none'");
      expect(page.text).to.include('<form method="post" action="/login">');
      expect(page.text).to.include('name="next" value="/runs"');

      const wrong = await call('POST', '/login', {
        form: { username: USERNAME, password: 'nope', next: '/runs' },
      });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).to.include('The username or password is wrong.');
      expect(wrong.text).to.include('name="next" value="/runs"');

      const right = await call('POST', '/login', {
        form: { username: USERNAME, password: PASSWORD, next: '/runs' },
      });
      expect(right.status).to.equal(303);
      expect(right.headers.get('location')).to.equal('/runs');
      const cookie = cookieValue(right.headers);

      const home = await call('GET', '/', { headers: { Cookie: cookie, Accept: 'text/html' } });
      expect(home.status).to.equal(200);
      expect(home.text).to.include(`Signed in as <strong>${USERNAME}</strong>`);
      // Already signed in: the sign-in page moves on.
      const again = await call('GET', '/login?next=%2Fx', { headers: { Cookie: cookie } });
      expect(again.status).to.equal(303);
      expect(again.headers.get('location')).to.equal('/x');

      const offSite = [
        '//evil.example/x',
        'https://evil.example',
        '/\\evil.example',
        'javascript:alert(1)',
        '/\tx',
      ];
      for (const [index, next] of offSite.entries()) {
        const answer = await call('POST', '/login', {
          form: { username: USERNAME, password: PASSWORD, next },
          // One address per try, so the sign-in limit stays out of this test.
          headers: { 'X-Forwarded-For': `203.0.113.${index}` },
        });
        expect(answer.status, next).to.equal(303);
        expect(answer.headers.get('location'), next).to.equal('/');
      }

      // A page name beyond ASCII is sent on percent-encoded (a raw one cannot be a header).
      const named = await call('GET', `/login?next=${encodeURIComponent('/runs/名前')}`, {
        headers: { Cookie: cookie },
      });
      expect(named.status).to.equal(303);
      expect(named.headers.get('location')).to.equal('/runs/%E5%90%8D%E5%89%8D');

      const out = await call('POST', '/logout', { headers: { Cookie: cookie } });
      expect(out.status).to.equal(303);
      expect(out.headers.get('location')).to.equal('/login');
      expect((await call('GET', '/api/conversations', { headers: { Cookie: cookie } })).status).to.equal(401);
    });

    it('escapes what it shows back, and takes each body type only where it belongs', async () => {
      const page = await call('GET', `/login?next=${encodeURIComponent('/"><script>x</script>')}`);
      expect(page.text).to.not.include('<script>');
      expect(page.text).to.include('value="/&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');

      const formToJson = await call('POST', '/api/auth/login', {
        form: { username: USERNAME, password: PASSWORD },
      });
      expect(formToJson.status).to.equal(415);
      const jsonToForm = await call('POST', '/login', { json: { username: USERNAME, password: PASSWORD } });
      expect(jsonToForm.status).to.equal(415);

      const missing = await call('POST', '/api/auth/login', { json: { username: USERNAME } });
      expect(missing.status).to.equal(400);
      expect((missing.json() as { errors: unknown }).errors).to.deep.equal([
        { path: '/body/password', message: 'is required' },
      ]);
      const huge = await signInWith(USERNAME, 'p'.repeat(1025));
      expect(huge.status).to.equal(400);
      expect((huge.json() as { errors: Array<{ path: string }> }).errors[0]!.path).to.equal('/body/password');
    });

    it('under https (from the proxy) names the cookie __Host- and marks it Secure', async () => {
      const answer = await signInWith(USERNAME, PASSWORD, { 'X-Forwarded-Proto': 'https' });
      const [line] = cookiesSet(answer.headers);
      expect(line).to.match(/^__Host-cairn_session=/);
      expect(line).to.include('; Secure').and.include('Path=/').and.not.include('Domain');
      const cookie = cookieValue(answer.headers);
      const through = await call('GET', '/api/conversations', {
        headers: { Cookie: cookie, 'X-Forwarded-Proto': 'https' },
      });
      expect(through.status).to.equal(200);
    });

    it('believes forwarded addresses only with TRUST_PROXY', async () => {
      await start(settings({ trustProxy: false }));
      for (let i = 0; i < SIGN_IN_ATTEMPTS.limit; i++) {
        const answer = await signInWith(USERNAME, 'wrong', { 'X-Forwarded-For': `198.51.100.${i}` });
        expect(answer.status).to.equal(401);
      }
      // Every try came from the same socket address, whatever the header claimed.
      const sixth = await signInWith(USERNAME, PASSWORD, { 'X-Forwarded-For': '198.51.100.99' });
      expect(sixth.status).to.equal(429);
      // And no https is believed either: the cookie stays the plain one.
      const other = await call('GET', '/api/auth/session', { headers: { 'X-Forwarded-Proto': 'https' } });
      expect(other.json().signedIn).to.equal(false);
    });

    it('answers a CORS preflight without credentials, and the cookie still decides the request', async () => {
      await start(settings(), 'https://ui.example');
      const preflight = await call('OPTIONS', '/api/conversations', {
        headers: { Origin: 'https://ui.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.status).to.equal(204);
      const anonymous = await call('POST', '/api/conversations', {
        json: {},
        headers: { Origin: 'https://ui.example' },
      });
      expect(anonymous.status).to.equal(401);
    });

    it('states the requirement in the OpenAPI document, and the document stays valid', async () => {
      const answer = await call('GET', '/api/openapi.json', {
        headers: { Authorization: `Bearer ${API_TOKEN}` },
      });
      const document = answer.json() as {
        security: unknown;
        components: { securitySchemes: Record<string, { type: string }> };
        paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      };
      expect(document.security).to.deep.equal([{ sessionCookie: [] }, { apiToken: [] }]);
      expect(Object.keys(document.components.securitySchemes)).to.deep.equal(['sessionCookie', 'apiToken']);
      expect(document.paths['/health']!.get!.security).to.deep.equal([]);
      expect(document.paths['/api/auth/login']!.post!.security).to.deep.equal([]);
      expect(document.paths['/api/conversations']!.get!.security).to.equal(undefined);
      expect(document.paths['/api/conversations']!.get!.responses['401']).to.deep.equal({
        $ref: '#/components/responses/Unauthorized',
      });
      await SwaggerParser.validate(structuredClone(document) as never);

      // Behind the sign-in proxy every public route must stay reachable: the proxy's open paths
      // cover each of them (the proxy may leave more open; the API still checks those itself).
      const caddyfile = readFileSync(new URL('../../../deploy/Caddyfile.sign-in', import.meta.url), 'utf8');
      const open = /@open path (.+)/.exec(caddyfile)![1]!.trim().split(/\s+/);
      const covered = (path: string) =>
        open.some((pattern) =>
          pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern,
        );
      const publicPaths = Object.entries(document.paths)
        .filter(([, operations]) =>
          Object.values(operations).some((operation) => operation.security !== undefined),
        )
        .map(([path]) => path);
      expect(publicPaths).to.include.members(['/health', '/login', '/api/auth/login']);
      for (const path of publicPaths) expect(covered(path), path).to.equal(true);
    });

    it('never writes the password, the token or a session cookie to the log', async () => {
      const cookie = await signedInCookie();
      await signInWith(USERNAME, 'a wrong secret password');
      await call('GET', '/api/conversations', { headers: { Authorization: `Bearer ${API_TOKEN}` } });
      await call('GET', '/api/conversations', { headers: { Cookie: cookie } });
      const text = logs.text();
      expect(text).to.include('http.request');
      for (const secret of [
        PASSWORD,
        'a wrong secret password',
        API_TOKEN,
        cookie.split('=')[1]!,
        passwordHash,
      ])
        expect(text).to.not.include(secret);
    });

    it('with only the API token: the API asks for it, and there is no password sign-in', async () => {
      await start(settings({ mode: 'token', form: undefined }));
      expect((await call('GET', '/api/conversations')).status).to.equal(401);
      const withToken = await call('GET', '/api/conversations', {
        headers: { Authorization: `Bearer ${API_TOKEN}` },
      });
      expect(withToken.status).to.equal(200);
      const attempt = await signInWith(USERNAME, PASSWORD);
      expect(attempt.status).to.equal(404);
      expect(attempt.json()).to.include({ code: 'sign_in_not_configured' });
      expect((await call('GET', '/login')).status).to.equal(404);
      // A page cannot be sent to a sign-in that does not exist: it gets the 401 too.
      expect((await call('GET', '/', { headers: { Accept: 'text/html' } })).status).to.equal(401);
    });

    it('with sign-in off, everything stays open as the spec has it', async () => {
      await start({ mode: 'open', trustProxy: false });
      expect((await call('GET', '/api/conversations')).status).to.equal(200);
      expect((await call('GET', '/')).status).to.equal(200);
      const state = await call('GET', '/api/auth/session');
      expect(state.json()).to.include({ signInRequired: false, passwordSignIn: false, signedIn: false });
    });
  });
}
