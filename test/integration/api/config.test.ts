import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEnvironmentVariables } from '../../../config/environment.js';
import { createCodebase } from '../../../db/repositories/codebases.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { startLazyCoreApp, type TestCoreApp } from '../../support/core-app.js';
import { captureLogs } from '../../support/logs.js';
import { makeTempDir } from '../../support/temp-dirs.js';

interface ConfigBody {
  assistants: { claude: Record<string, unknown>; codex: Record<string, unknown> };
  concurrency: { maxConversations: number };
  envKeys: string[];
  integrations: Record<string, boolean>;
  sources: { globalFile: string | null; repositoryFile: string | null };
  problems: unknown[];
  [key: string]: unknown;
}

const GLOBAL_FILE = `# Cairn settings for this machine
concurrency:
  maxConversations: 4 # two cores here
assistants:
  claude:
    settingSources: [project] # keep user settings out
`;

for (const kind of databaseKinds()) {
  describe(`configuration API (${kind.name})`, () => {
    let test: TestDatabase;
    let server: TestCoreApp | undefined;
    let home: ReturnType<typeof makeTempDir>;
    const logs = captureLogs('debug');

    async function start(env: Record<string, string> = {}) {
      server = await startLazyCoreApp(test.db, { home: home.path, logger: logs.logger, env });
    }

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-home-');
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
      await test.dispose();
      home.cleanup();
    });

    async function call(method: string, path: string, body?: unknown) {
      const response = await fetch(`${server!.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as ConfigBody };
    }
    const configFile = () => join(home.path, 'config.yaml');

    it('shows the configuration as it applies, with defaults where nothing is set', async () => {
      await start();
      const answer = await call('GET', '/api/config');
      expect(answer.status).to.equal(200);
      expect(answer.body).to.deep.include({
        defaultAssistant: 'claude',
        allowTargetRepoKeys: false,
        database: kind.name,
        signIn: 'open',
        envKeys: [],
        problems: [],
      });
      expect(answer.body.assistants.claude).to.deep.equal({
        model: null,
        settingSources: ['project'],
        binaryPath: null,
      });
      expect(answer.body.concurrency).to.deep.equal({ maxConversations: 10 });
      expect(answer.body.integrations).to.deep.equal({
        telegram: false,
        discord: false,
        slack: false,
        github: false,
        gitlab: false,
      });
      expect(answer.body.sources).to.deep.equal({ globalFile: null, repositoryFile: null });
      expect(answer.body.paths).to.deep.equal({
        workspaces: join(home.path, 'workspaces'),
        worktrees: null,
      });
    });

    it('writes assistant settings into config.yaml, keeping its comments and other keys', async () => {
      writeFileSync(configFile(), GLOBAL_FILE);
      await start();
      const changed = await call('PATCH', '/api/config/assistants', {
        claude: { model: 'claude-opus-4' },
        codex: { webSearchMode: 'live', additionalDirectories: ['/srv/shared'] },
      });
      expect(changed.status, changed.text).to.equal(200);
      expect(changed.body.assistants.claude).to.include({ model: 'claude-opus-4' });
      expect(changed.body.assistants.codex).to.deep.include({
        webSearchMode: 'live',
        additionalDirectories: ['/srv/shared'],
      });
      expect(changed.body.concurrency.maxConversations).to.equal(4);
      expect(changed.body.sources.globalFile).to.equal(configFile());

      const text = readFileSync(configFile(), 'utf8');
      expect(text).to.include('# Cairn settings for this machine');
      expect(text).to.include('maxConversations: 4 # two cores here');
      expect(text).to.include('# keep user settings out');
      expect(text).to.include('model: claude-opus-4');
      expect((await call('GET', '/api/config')).body.assistants).to.deep.equal(changed.body.assistants);

      // null removes a setting; a section left empty goes with it.
      const removed = await call('PATCH', '/api/config/assistants', {
        codex: { webSearchMode: null, additionalDirectories: null },
      });
      expect(removed.body.assistants.codex).to.deep.include({
        webSearchMode: null,
        additionalDirectories: [],
      });
      expect(readFileSync(configFile(), 'utf8')).to.not.include('codex');
      expect(readFileSync(configFile(), 'utf8')).to.include('model: claude-opus-4');

      // Removing a setting of a section the file does not have: nothing to do, not a 500.
      const before = readFileSync(configFile(), 'utf8');
      const absent = await call('PATCH', '/api/config/assistants', { codex: { model: null } });
      expect(absent.status, absent.text).to.equal(200);
      expect(readFileSync(configFile(), 'utf8')).to.equal(before);
    });

    it('creates config.yaml when there is none, readable by its owner only', async () => {
      await start();
      const answer = await call('PATCH', '/api/config/assistants', {
        claude: { settingSources: ['project', 'user'] },
      });
      expect(answer.status).to.equal(200);
      expect(answer.body.assistants.claude.settingSources).to.deep.equal(['project', 'user']);
      const { statSync } = await import('node:fs');
      expect(statSync(configFile()).mode & 0o777).to.equal(0o600);
    });

    it('refuses an unknown assistant, an unknown setting or a bad value with a 400 naming it, writing nothing', async () => {
      writeFileSync(configFile(), GLOBAL_FILE);
      await start();
      const cases: Array<[unknown, string]> = [
        [{ gemini: { model: 'x' } }, '/body/gemini'],
        [{ claude: { temperature: 1 } }, '/body/claude/temperature'],
        [{ claude: { settingSources: ['project', 'everything'] } }, '/body/claude/settingSources/1'],
        [{ codex: { additionalDirectories: ['relative/dir'] } }, '/body/codex/additionalDirectories/0'],
        [{ claude: { model: '' } }, '/body/claude/model'],
        [{ claude: { model: 'line\nbreak' } }, '/body/claude/model'],
        [{}, '/body'],
      ];
      for (const [body, path] of cases) {
        const answer = await call('PATCH', '/api/config/assistants', body);
        expect(answer.status, JSON.stringify(body)).to.equal(400);
        const errors = (answer.body as unknown as { errors: Array<{ path: string }> }).errors;
        expect(
          errors.map((error) => error.path),
          JSON.stringify(body),
        ).to.include(path);
      }
      expect(readFileSync(configFile(), 'utf8')).to.equal(GLOBAL_FILE);
    });

    it('refuses to write over a config.yaml that is not valid YAML, and leaves it as it was', async () => {
      const broken = 'assistants: [unclosed\n';
      writeFileSync(configFile(), broken);
      await start();
      const answer = await call('PATCH', '/api/config/assistants', { claude: { model: 'x' } });
      expect(answer.status).to.equal(409);
      expect(answer.body).to.include({ code: 'config_file_refused' });
      expect(readFileSync(configFile(), 'utf8')).to.equal(broken);
      const view = await call('GET', '/api/config');
      expect(view.body.problems).to.have.length(1);
    });

    it("layers a codebase's .cairn/config.yaml with codebase_id, naming its env keys but never their values", async () => {
      const repo = makeTempDir('cairn-repo-');
      try {
        mkdirSync(join(repo.path, '.cairn'));
        writeFileSync(
          join(repo.path, '.cairn', 'config.yaml'),
          'env: { DEPLOY_TOKEN: tok-canary-123456, REGION: eu }\nworktree: { baseBranch: develop }\ndocs: { path: handbook }\n',
        );
        const codebase = await createCodebase(test.db.knex, {
          name: 'repo',
          repositoryKey: repo.path,
          localPath: repo.path,
          sourcePath: repo.path,
        });
        await start();
        const answer = await call('GET', `/api/config?codebase_id=${codebase.id}`);
        expect(answer.status).to.equal(200);
        expect(answer.body.envKeys).to.deep.equal(['DEPLOY_TOKEN', 'REGION']);
        expect(answer.body).to.deep.include({
          worktree: { baseBranch: 'develop', copyFiles: [] },
          docs: { path: 'handbook' },
        });
        expect(answer.body.sources.repositoryFile).to.equal(join(repo.path, '.cairn', 'config.yaml'));
        expect(answer.text).to.not.include('tok-canary-123456');
        expect((await call('GET', '/api/config?codebase_id=nope')).status).to.equal(404);
      } finally {
        repo.cleanup();
      }
    });

    it('shows no secret in any answer or log line, whatever is set', async () => {
      // Every variable the reference marks secret gets a value of its right shape, holding a canary.
      const canaries = new Map<string, string>();
      const env: Record<string, string> = {};
      for (const variable of describeEnvironmentVariables().filter((row) => row.secret && !row.aliasOf)) {
        const canary = `canary${variable.name.toLowerCase().replace(/_/g, '')}`.padEnd(40, 'x');
        canaries.set(variable.name, canary);
        env[variable.name] = canary;
      }
      env.DATABASE_URL = `postgres://cairn:${canaries.get('DATABASE_URL')}@127.0.0.1:1/cairn`;
      env.COOKIE_SECRET = 'c0ffee'.repeat(11).slice(0, 64);
      canaries.set('COOKIE_SECRET', env.COOKIE_SECRET);
      env.AUTH_PASSWORD_HASH = `$argon2id$v=19$m=19456,t=2,p=1$${'c2FsdA'.repeat(3)}$${'aGFzaA'.repeat(6)}`;
      canaries.set('AUTH_PASSWORD_HASH', env.AUTH_PASSWORD_HASH);
      env.PROXY_BASIC_AUTH = canaries.get('PROXY_BASIC_AUTH')!;
      await start(env);

      const answers: string[] = [];
      for (const path of [
        '/api/config',
        '/api/health',
        '/health',
        '/health/db',
        '/health/concurrency',
        '/api/openapi.json',
        '/api/update-check',
        '/api/conversations',
        '/api/codebases',
        '/api/workflows',
        '/api/commands',
        '/api/workflows/runs',
        '/api/dashboard/runs',
        '/api/conversations/unknown',
        '/api/nothing',
      ]) {
        answers.push((await call('GET', path)).text);
      }
      answers.push((await call('PATCH', '/api/config/assistants', { claude: { model: 'm' } })).text);
      answers.push((await call('PATCH', '/api/config/assistants', { claude: { bad: 1 } })).text);
      const config = JSON.parse(answers[0]!) as ConfigBody;
      expect(config.integrations).to.deep.include({
        telegram: true,
        discord: true,
        slack: true,
        github: true,
      });
      const everything = answers.join('\n') + logs.text();
      for (const [name, canary] of canaries) expect(everything, name).to.not.include(canary);
    });
  });
}
