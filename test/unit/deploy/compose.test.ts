import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

// No Docker engine here: the compose file is checked as a file, for the topology it promises.
interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: unknown };
  profiles?: string[];
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number };
}

const compose = parse(readFileSync(new URL('../../../docker-compose.yml', import.meta.url), 'utf8'), {
  merge: true,
}) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

describe('docker-compose.yml', () => {
  const services = compose.services;

  it('has the production topology', () => {
    expect(Object.keys(services)).to.include.members([
      'postgres',
      'temporal',
      'temporal-ui',
      'cairn-api',
      'cairn-worker',
    ]);
  });

  it('runs Temporal on Postgres persistence', () => {
    const temporal = services.temporal!;
    expect(temporal.image).to.match(/^temporalio\/auto-setup:/);
    expect(temporal.environment?.DB).to.match(/^postgres/);
    expect(temporal.environment?.POSTGRES_SEEDS).to.equal('postgres');
    expect(temporal.depends_on).to.have.property('postgres');
    expect(services['temporal-ui']!.environment?.TEMPORAL_ADDRESS).to.equal('temporal:7233');
  });

  it('gives Temporal the dynamic config that lets bash nodes be dispatched eagerly', () => {
    const temporal = services.temporal!;
    const mount = temporal.volumes?.find((volume) =>
      volume.startsWith('./deploy/temporal-dynamic-config.yaml:'),
    );
    expect(mount, 'dynamic config mount').to.not.equal(undefined);
    const inContainer = mount!.split(':')[1]!;
    expect(`/etc/temporal/${String(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH)}`).to.equal(inContainer);
    const dynamic = parse(
      readFileSync(new URL('../../../deploy/temporal-dynamic-config.yaml', import.meta.url), 'utf8'),
    ) as Record<string, Array<{ value: unknown }>>;
    expect(dynamic['system.enableActivityEagerExecution']).to.deep.equal([{ value: true }]);
  });

  it('splits Cairn into api and worker roles sharing Postgres and Temporal', () => {
    for (const [name, role] of [
      ['cairn-api', 'api'],
      ['cairn-worker', 'worker'],
    ] as const) {
      const service = services[name]!;
      expect(service.build, name).to.not.equal(undefined);
      expect(service.command, name).to.deep.equal([role]);
      expect(service.environment?.DATABASE_URL, name).to.match(/^postgres:\/\/.+@postgres:5432\//);
      expect(service.environment?.TEMPORAL_ADDRESS, name).to.equal('temporal:7233');
      expect(service.depends_on, name).to.have.property('temporal');
      expect(service.depends_on, name).to.have.property('postgres');
    }
    expect(services['cairn-api']!.healthcheck?.test).to.satisfy((t: unknown) =>
      JSON.stringify(t).includes('/health'),
    );
  });

  it('keeps the reverse proxy optional and declares every named volume', () => {
    expect(services.proxy?.profiles).to.deep.equal(['proxy']);
    const named = Object.values(services)
      .flatMap((s) => s.volumes ?? [])
      .map((v) => v.split(':')[0]!)
      .filter((source) => !source.startsWith('.') && !source.startsWith('/') && !source.startsWith('$'));
    for (const volume of named) expect(compose.volumes, volume).to.have.property(volume);
  });

  it('runs the forward-auth service for the sign-in proxy, unpublished, trusting what the API trusts', () => {
    const auth = services['cairn-auth']!;
    expect(auth.profiles).to.deep.equal(['sign-in']);
    expect(auth.command).to.deep.equal(['auth', 'serve']);
    // The same trust as the API's: both must look for the same cookie name.
    expect(auth.environment?.TRUST_PROXY).to.equal(services['cairn-api']!.environment?.TRUST_PROXY);
    expect(auth.environment?.DATABASE_URL).to.equal(services['cairn-api']!.environment?.DATABASE_URL);
    expect(auth.ports).to.equal(undefined);
    expect(services.proxy!.volumes).to.include('./deploy/${CADDYFILE:-Caddyfile}:/etc/caddy/Caddyfile:ro');
    const caddyfile = readFileSync(new URL('../../../deploy/Caddyfile.sign-in', import.meta.url), 'utf8');
    expect(caddyfile).to.match(/forward_auth cairn-auth:\{\$AUTH_SERVICE_PORT\} \{\s+uri \/verify/);
    for (const name of ['AUTH_USERNAME', 'AUTH_PASSWORD_HASH', 'COOKIE_SECRET', 'CAIRN_API_TOKEN'])
      expect(services['cairn-api']!.environment, name).to.have.property(name);
  });

  it('lets the API and the workers run as several replicas (docker compose --scale)', () => {
    const api = services['cairn-api']!;
    const worker = services['cairn-worker']!;
    // A fixed container name or a single host port would stop a second replica from starting.
    for (const [name, service] of Object.entries({ 'cairn-api': api, 'cairn-worker': worker })) {
      expect(service, name).to.not.have.property('container_name');
    }
    expect(api.ports).to.deep.equal(['127.0.0.1:3090-3099:3090']);
    // The production topology runs two of each unless told otherwise (issue 24).
    expect(api.deploy?.replicas).to.equal(2);
    expect(worker.deploy?.replicas).to.equal(2);
    expect(worker.ports, 'a worker publishes nothing').to.equal(undefined);
    // Every replica sees one CAIRN_HOME: a turn or run may land on any worker.
    expect(api.volumes).to.deep.equal(worker.volumes);
    expect(api.environment?.CAIRN_HOME).to.equal('/.cairn');
    expect(api.volumes![0]!.endsWith(':/.cairn')).to.equal(true);
    // Replicas need Postgres (LISTEN/NOTIFY carries live events between processes), not SQLite.
    expect(worker.environment?.DATABASE_URL).to.equal(api.environment?.DATABASE_URL);
  });

  it('publishes the API and the Temporal UI only on loopback', () => {
    for (const name of ['cairn-api', 'temporal-ui']) {
      for (const port of services[name]!.ports ?? []) expect(port, name).to.match(/^127\.0\.0\.1:/);
    }
  });
});

describe('Dockerfile', () => {
  const lines = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8').split('\n');

  it('runs Cairn as a user that is not root, who owns the home', () => {
    const users = lines.filter((line) => line.startsWith('USER '));
    expect(users.at(-1)).to.equal('USER node');
    const userLine = lines.indexOf('USER node');
    const chown = lines.findIndex((line) => /chown node:node \/\.cairn/.test(line));
    expect(chown).to.be.greaterThan(-1).and.lessThan(userLine);
    // The entry point comes after the switch, so it runs as that user.
    expect(lines.findIndex((line) => line.startsWith('ENTRYPOINT'))).to.be.greaterThan(userLine);
  });
});
