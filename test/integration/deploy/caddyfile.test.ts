import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goInstalledTool } from '../../support/go-tools.js';
import { makeTempDir } from '../../support/temp-dirs.js';

// The compose file's proxy configurations, read by real Caddy (built from the module proxy):
// `caddy adapt` parses a Caddyfile with the environment the compose file gives it and prints the
// JSON configuration Caddy would run, which is checked here.
const DEPLOY = fileURLToPath(new URL('../../../deploy', import.meta.url));
const CADDY_MODULE = 'github.com/caddyserver/caddy/v2/cmd/caddy';
const CADDY_VERSION = 'v2.10.2';
// The form docs/operations.md gives for PROXY_BASIC_AUTH, with a bcrypt hash.
const BASIC_AUTH = 'basic_auth {\n  admin $2a$14$Zkx19XLiW6VYouLHR5NmfOFU0z2GTNmpkT/5qqR7hx4IjWJPDhjvG\n}';

interface Handler {
  handler?: string;
  [key: string]: unknown;
}

/** Every object with a `handler` anywhere in the configuration. */
function handlers(node: unknown, found: Handler[] = []): Handler[] {
  if (Array.isArray(node)) for (const item of node) handlers(item, found);
  else if (node && typeof node === 'object') {
    if ('handler' in node) found.push(node as Handler);
    for (const value of Object.values(node)) handlers(value, found);
  }
  return found;
}

/** Where each reverse_proxy sends requests: its fixed upstreams, or `a:<name>:<port>` for DNS-found ones. */
function dials(config: unknown): string[] {
  return handlers(config)
    .filter((h) => h.handler === 'reverse_proxy')
    .flatMap((h) => {
      const dynamic = h.dynamic_upstreams as { source: string; name: string; port: string } | undefined;
      if (dynamic) return [`${dynamic.source}:${dynamic.name}:${dynamic.port}`];
      return (h.upstreams as Array<{ dial: string }>).map((u) => u.dial);
    });
}

/** Every replica of the API, found in Docker's DNS, with the next one tried when one fails. */
function expectEveryApiReplica(config: unknown) {
  for (const proxy of handlers(config).filter((h) => h.dynamic_upstreams)) {
    expect(proxy.dynamic_upstreams).to.deep.include({ source: 'a', name: 'cairn-api', port: '3090' });
    expect(proxy.load_balancing).to.deep.nested.include({ 'selection_policy.policy': 'least_conn' });
    expect(proxy.health_checks).to.deep.nested.include({ 'passive.fail_duration': 10_000_000_000 });
  }
}

describe('the Caddyfiles of the compose deployment, read by Caddy', function () {
  let caddy: string;
  const scratch = makeTempDir('cairn-caddy-');
  before(function () {
    // A first build downloads and compiles Caddy: a minute or two.
    this.timeout(10 * 60_000);
    caddy = goInstalledTool(CADDY_MODULE, CADDY_VERSION);
  });
  after(() => scratch.cleanup());

  const adapt = (file: string, env: Record<string, string>) => {
    const run = spawnSync(caddy, ['adapt', '--config', file, '--adapter', 'caddyfile'], {
      env: { PATH: process.env.PATH, HOME: scratch.path, ...env },
      encoding: 'utf8',
    });
    return {
      status: run.status,
      stderr: run.stderr,
      config: run.status === 0 ? (JSON.parse(run.stdout) as unknown) : undefined,
    };
  };
  const composeEnv = { DOMAIN: 'cairn.example.com', AUTH_SERVICE_PORT: '9000', PROXY_BASIC_AUTH: '' };

  it('refuses a broken Caddyfile', () => {
    const broken = join(scratch.path, 'Caddyfile');
    writeFileSync(broken, '{$DOMAIN} {\n\treverse_proxy {\n');
    expect(adapt(broken, composeEnv).status).to.not.equal(0);
  });

  it('Caddyfile: TLS for DOMAIN, every request to the replicas of cairn-api, formatted as caddy fmt wants', () => {
    const { status, stderr, config } = adapt(join(DEPLOY, 'Caddyfile'), composeEnv);
    expect(status, stderr).to.equal(0);
    // Caddy warns here about an unformatted file, among others.
    expect(stderr, 'warnings').to.equal('');
    expect(JSON.stringify(config)).to.include('"host":["cairn.example.com"]');
    expect(dials(config)).to.deep.equal(['a:cairn-api:3090']);
    expectEveryApiReplica(config);
    expect(handlers(config).map((h) => h.handler)).to.not.include('authentication');
  });

  it('Caddyfile: PROXY_BASIC_AUTH in the documented form turns on basic authentication', () => {
    const { status, stderr, config } = adapt(join(DEPLOY, 'Caddyfile'), {
      ...composeEnv,
      PROXY_BASIC_AUTH: BASIC_AUTH,
    });
    expect(status, stderr).to.equal(0);
    const authentication = handlers(config).find((h) => h.handler === 'authentication');
    expect(authentication?.providers).to.deep.nested.include({ 'http_basic.accounts[0].username': 'admin' });
  });

  it('Caddyfile.sign-in: the open paths go to the API, every other request asks cairn-auth first', () => {
    const { status, stderr, config } = adapt(join(DEPLOY, 'Caddyfile.sign-in'), composeEnv);
    expect(status, stderr).to.equal(0);
    expect(stderr, 'warnings').to.equal('');
    expect(dials(config)).to.have.members(['a:cairn-api:3090', 'cairn-auth:9000', 'a:cairn-api:3090']);
    expectEveryApiReplica(config);
    const text = JSON.stringify(config);
    expect(text).to.include('"path":["/health","/health/*","/login","/logout","/api/auth/*","/webhooks/*"]');
    expect(text).to.include('"uri":"/verify"');
    expect(text).to.include('"X-Cairn-User"');
  });
});
