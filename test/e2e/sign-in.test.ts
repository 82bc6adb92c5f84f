import { expect } from 'chai';
import { freePort } from '../../worker/temporal/ports.js';
import { runCairn, spawnCairn, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { makeTempDir, makeTempHome } from '../support/temp-dirs.js';
import { testTemporal } from '../support/temporal.js';

const PASSWORD = 'a long pass phrase with spaces';
const COOKIE_SECRET = 'ab'.repeat(32);
const API_TOKEN = 'cd'.repeat(32);

/**
 * The sign-in as a user sets it up: `cairn auth hash-password` and `cairn auth new-secret` print
 * the values, `cairn api` checks them at start and then asks for a session, and `cairn auth
 * serve` answers a reverse proxy from the same database. SQLite; Postgres is covered by the
 * integration tests of the same routes.
 */
describe('sign-in through the cairn command', function () {
  this.timeout(5 * 60_000);
  const home = makeTempHome();
  const cwd = makeTempDir();
  const processes: CairnProcess[] = [];
  let env: NodeJS.ProcessEnv;

  after(async () => {
    for (const started of processes) await started.stop('SIGKILL');
    home.cleanup();
    cwd.cleanup();
  });

  before(async () => {
    const temporal = await testTemporal();
    env = {
      ...process.env,
      CAIRN_HOME: home.home,
      LOG_LEVEL: 'warn',
      TEMPORAL_ADDRESS: temporal.endpoint.address,
    };
    delete env.DATABASE_URL;
  });

  const run = (args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) =>
    runCairn(args, { env: { ...env, ...extra }, cwd: cwd.path, input });

  it('prints a password hash and a secret that the server then accepts', async () => {
    const hashed = await run(['auth', 'hash-password'], {}, `${PASSWORD}\n`);
    expect(hashed.code, hashed.output).to.equal(0);
    const hash = hashed.output.trim();
    expect(hash).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(hashed.output).to.not.include(PASSWORD);

    const secret = await run(['auth', 'new-secret']);
    expect(secret.code).to.equal(0);
    expect(secret.output.trim()).to.match(/^[0-9a-f]{64}$/);

    const empty = await run(['auth', 'hash-password'], {}, '\n');
    expect(empty.code).to.equal(2);
    expect(empty.output).to.include('the password is empty');
    env.AUTH_PASSWORD_HASH = hash;
  });

  it('refuses to start on half a sign-in or a bad secret, naming what is wrong and not the values', async () => {
    const half = await run(['api'], { AUTH_USERNAME: 'ada', AUTH_PASSWORD_HASH: '' });
    expect(half.code).to.equal(2);
    expect(half.output).to.include('AUTH_PASSWORD_HASH is required when any of');
    expect(half.output).to.include('COOKIE_SECRET is required when any of');

    const badSecret = 'not-hex-and-secret-value';
    const bad = await run(['api'], { AUTH_USERNAME: 'ada', COOKIE_SECRET: badSecret });
    expect(bad.code).to.equal(2);
    expect(bad.output).to.include('COOKIE_SECRET must be 64 hexadecimal characters');
    expect(bad.output).to.not.include(badSecret);

    const badHash = await run(['api'], { AUTH_USERNAME: 'ada', AUTH_PASSWORD_HASH: 'plain', COOKIE_SECRET });
    expect(badHash.code).to.equal(2);
    expect(badHash.output).to.include('AUTH_PASSWORD_HASH must be an argon2id hash');
    expect(badHash.output).to.not.include('plain');

    const shortToken = await run(['api'], { CAIRN_API_TOKEN: 'short' });
    expect(shortToken.code).to.equal(2);
    expect(shortToken.output).to.include('CAIRN_API_TOKEN must be at least 32 printable characters');

    const nothingToServe = await run(['auth', 'serve'], { AUTH_PASSWORD_HASH: '' });
    expect(nothingToServe.code).to.equal(2);
    expect(nothingToServe.output).to.include('sign-in is not set up');
  });

  it('asks for a session on the API, and the forward-auth service agrees with it', async () => {
    const [port, authPort] = [await freePort(), await freePort()];
    const signInEnv = {
      ...env,
      PORT: String(port),
      AUTH_SERVICE_PORT: String(authPort),
      AUTH_USERNAME: 'ada',
      COOKIE_SECRET,
      CAIRN_API_TOKEN: API_TOKEN,
      // A chat token starts its adapter in `cairn api` too; its Bot API is a loopback port nobody
      // answers on, so it keeps trying (and failing) without leaving the machine.
      TELEGRAM_BOT_TOKEN: '123:telegram-token-nobody-accepts',
      TELEGRAM_API_ROOT: `http://127.0.0.1:${await freePort()}`,
    };
    const api = spawnCairn(['api'], { env: signInEnv, cwd: cwd.path });
    processes.push(api);
    await waitForOk(`http://127.0.0.1:${port}/health/db`, api, 120_000);
    const forwardAuth = spawnCairn(['auth', 'serve'], { env: signInEnv, cwd: cwd.path });
    processes.push(forwardAuth);
    await waitForOk(`http://127.0.0.1:${authPort}/health`, forwardAuth, 60_000);

    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/api/conversations`)).status).to.equal(401);
    const page = await fetch(`${base}/`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/login?next=%2F');

    const signIn = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ada', password: PASSWORD }),
    });
    expect(signIn.status).to.equal(200);
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await fetch(`${base}/api/conversations`, { headers: { Cookie: cookie } })).status).to.equal(200);
    const asClient = { headers: { Authorization: `Bearer ${API_TOKEN}` } };
    const health = (await (await fetch(`${base}/api/health`, asClient)).json()) as {
      adapters: string[];
      chat: { telegram: { status: string } };
    };
    expect(health.adapters).to.deep.equal(['web', 'telegram']);
    expect(health.chat.telegram.status).to.be.oneOf(['connecting', 'failing']);
    const config = (await (await fetch(`${base}/api/config`, asClient)).json()) as {
      integrations: { telegram: boolean };
      signIn: string;
    };
    expect(config).to.deep.include({ signIn: 'form' });
    expect(config.integrations.telegram).to.equal(true);
    const withToken = await fetch(`${base}/api/conversations`, {
      headers: { Authorization: `Bearer ${API_TOKEN}` },
    });
    expect(withToken.status).to.equal(200);

    // What Caddy's forward_auth sends: the original headers, and the method and URI it holds.
    const verify = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${authPort}/verify`, { headers, redirect: 'manual' });
    const allowed = await verify({
      Cookie: cookie,
      'X-Forwarded-Method': 'GET',
      'X-Forwarded-Uri': '/api/conversations',
    });
    expect(allowed.status).to.equal(200);
    expect(allowed.headers.get('x-cairn-user')).to.equal('ada');
    const byToken = await verify({ Authorization: `Bearer ${API_TOKEN}`, 'X-Forwarded-Uri': '/api/runs' });
    expect(byToken.status).to.equal(200);
    expect(byToken.headers.get('x-cairn-user')).to.equal('api-token');

    const anonymousApi = await verify({
      'X-Forwarded-Method': 'POST',
      'X-Forwarded-Uri': '/api/conversations',
    });
    expect(anonymousApi.status).to.equal(401);
    // The client sees this problem for its own request, so it names that one, not /verify.
    expect(await anonymousApi.json()).to.include({
      code: 'authentication_required',
      instance: '/api/conversations',
    });
    const anonymousPage = await verify({
      Accept: 'text/html',
      'X-Forwarded-Method': 'GET',
      'X-Forwarded-Uri': '/runs/1',
    });
    expect(anonymousPage.status).to.equal(303);
    expect(anonymousPage.headers.get('location')).to.equal('/login?next=%2Fruns%2F1');

    // A sign-out on the API ends the session for the forward-auth service too: one database.
    expect(
      (await fetch(`${base}/api/auth/logout`, { method: 'POST', headers: { Cookie: cookie } })).status,
    ).to.equal(204);
    expect((await verify({ Cookie: cookie, 'X-Forwarded-Uri': '/api/conversations' })).status).to.equal(401);

    expect(await forwardAuth.stop()).to.equal(0);
    expect(await api.stop()).to.equal(0);
  });
});
