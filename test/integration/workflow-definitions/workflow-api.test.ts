import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureWorktree } from '../../../services/worktrees/worktrees.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import type { TestCoreApp } from '../../support/core-app.js';
import type { TempRepo } from '../../support/git-repos.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { jsonClient } from '../../support/json-client.js';
import { startDefinitionsApp, type DefinitionsApp } from './definitions-app.js';

interface Lookup {
  workflow: { name: string; description?: string };
  filename: string;
  source: 'bundled' | 'project';
}
interface Problem {
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

const SIMPLE = (name: string, prompt = 'Say hello to $ARGUMENTS') => ({
  name,
  description: `the ${name} workflow`,
  nodes: [{ id: 'only', prompt }],
});

for (const kind of databaseKinds()) {
  describe(`workflow definitions and commands API (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let app: TestCoreApp;
    let repo: TempRepo;
    let fixture: DefinitionsApp;

    beforeEach(async () => {
      fixture = await startDefinitionsApp(kind);
      ({ test, app, repo } = fixture);
    });

    afterEach(() => fixture.close());

    const call = jsonClient(() => app.url);

    const cwd = () => `cwd=${encodeURIComponent(repo.path)}`;
    const projectFile = (name: string, content: string | Buffer) => {
      mkdirSync(join(repo.path, '.cairn', 'workflows'), { recursive: true });
      writeFileSync(join(repo.path, '.cairn', 'workflows', name), content);
    };

    it('lists the bundled library without a cwd, each entry valid and named', async () => {
      const list = await call<{ workflows: Lookup[]; errors?: unknown[] }>('GET', '/api/workflows');
      expect(list.status).to.equal(200);
      expect(list.body.errors).to.equal(undefined);
      const names = list.body.workflows.map((entry) => entry.workflow.name);
      expect(names).to.include.members([
        'assist',
        'fix-issue',
        'plan-implement-validate',
        'review-pr',
        'idea-to-pr',
        'resolve-conflicts',
      ]);
      expect(list.body.workflows.every((entry) => entry.source === 'bundled')).to.equal(true);
      const one = await call<Lookup>('GET', '/api/workflows/review-pr');
      expect(one.body).to.include({ source: 'bundled', filename: 'review-pr.yaml' });
    });

    it('merges project workflows over bundled ones and lists the files that failed, while the rest load', async () => {
      projectFile(
        'assist.yaml',
        'name: assist\ndescription: ours\nnodes:\n  - id: only\n    prompt: Our own assist\n',
      );
      projectFile('mine.yml', 'name: mine\nnodes:\n  - id: a\n    prompt: hi\n');
      projectFile('broken.yaml', 'name: broken\nnodes: [\n');
      projectFile(
        'cyclic.yaml',
        'name: cyclic\nnodes:\n  - {id: a, prompt: x, depends_on: [b]}\n  - {id: b, prompt: y, depends_on: [a]}\n',
      );
      projectFile(
        'bomb.yaml',
        `a: &a [x, x, x, x, x, x, x, x, x]\n${Array.from(
          { length: 12 },
          (_, i) =>
            `l${i + 1}: &l${i + 1} [${Array(9)
              .fill(`*${i === 0 ? 'a' : `l${i}`}`)
              .join(', ')}]`,
        ).join('\n')}\nname: bomb\n`,
      );
      projectFile('latin1.yaml', Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xe9, 0x0a]));
      projectFile(
        'huge.yaml',
        `name: huge\ndescription: ${'x'.repeat(300 * 1024)}\nnodes: [{id: a, prompt: b}]\n`,
      );
      projectFile('list.yaml', '- just\n- a list\n');

      const list = await call<{ workflows: Lookup[]; errors: Array<{ filename: string; error: string }> }>(
        'GET',
        `/api/workflows?${cwd()}`,
      );
      expect(list.status).to.equal(200);
      const assist = list.body.workflows.find((entry) => entry.workflow.name === 'assist')!;
      expect(assist).to.deep.include({ source: 'project', filename: '.cairn/workflows/assist.yaml' });
      expect(list.body.workflows.some((entry) => entry.workflow.name === 'mine')).to.equal(true);
      expect(list.body.workflows.some((entry) => entry.workflow.name === 'fix-issue')).to.equal(true);
      const errors = Object.fromEntries(list.body.errors.map((error) => [error.filename, error.error]));
      expect(Object.keys(errors).sort()).to.deep.equal(
        ['bomb', 'broken', 'cyclic', 'huge', 'latin1', 'list'].map((name) => `.cairn/workflows/${name}.yaml`),
      );
      expect(errors['.cairn/workflows/broken.yaml']).to.match(/not valid YAML/);
      expect(errors['.cairn/workflows/cyclic.yaml']).to.match(/cycle/);
      expect(errors['.cairn/workflows/bomb.yaml']).to.match(/YAML/);
      expect(errors['.cairn/workflows/latin1.yaml']).to.match(/UTF-8/);
      expect(errors['.cairn/workflows/huge.yaml']).to.match(/larger than/);

      writeFileSync(join(repo.path, '.cairn', 'config.yaml'), 'defaults:\n  loadDefaultWorkflows: false\n');
      const projectOnly = await call<{ workflows: Lookup[] }>('GET', `/api/workflows?${cwd()}`);
      expect(projectOnly.body.workflows.map((entry) => entry.workflow.name)).to.deep.equal([
        'assist',
        'mine',
      ]);
    });

    it('reads only registered codebases and their worktrees', async () => {
      const elsewhere = makeTempDir('cairn-elsewhere-');
      try {
        for (const bad of [elsewhere.path, 'relative/path', '/no/such/dir', `${repo.path}/..`]) {
          const answer = await call<Problem>('GET', `/api/workflows?cwd=${encodeURIComponent(bad)}`);
          expect(answer.status, bad).to.equal(400);
          expect(answer.body.errors?.[0]?.path).to.equal('/query/cwd');
          expect((await call('GET', `/api/commands?cwd=${encodeURIComponent(bad)}`)).status).to.equal(400);
        }
      } finally {
        elsewhere.cleanup();
      }
      const codebase = (await test.db.knex('codebases').first()) as { id: string };
      const worktreesRoot = makeTempDir('cairn-worktrees-');
      try {
        const { environment } = await ensureWorktree({
          db: test.db,
          codebaseId: codebase.id,
          sourcePath: repo.path,
          worktreesRoot: worktreesRoot.path,
          kind: 'task',
          key: 'docs',
        });
        const answer = await call<{ workflows: Lookup[] }>(
          'GET',
          `/api/workflows?cwd=${encodeURIComponent(environment.path)}`,
        );
        expect(answer.status).to.equal(200);
      } finally {
        worktreesRoot.cleanup();
      }
    });

    it('validates without saving: valid, invalid with messages naming node and field, not an object', async () => {
      expect(
        (await call('POST', '/api/workflows/validate', { definition: SIMPLE('fine') })).body,
      ).to.deep.equal({
        valid: true,
      });
      const invalid = await call<{ valid: boolean; errors: string[] }>('POST', '/api/workflows/validate', {
        definition: {
          name: 'bad',
          nodes: [
            { id: 'a', prompt: 'x', depends_on: ['nope'] },
            { id: 'a', prompt: 'y', bash: 'echo' },
            { id: 'c', prompt: 'z', output_format: { type: 'not-a-type' } },
          ],
        },
      });
      expect(invalid.body.valid).to.equal(false);
      const text = invalid.body.errors.join('\n');
      expect(text)
        .to.match(/nope/)
        .and.match(/duplicate|already/i)
        .and.match(/output_format/);
      for (const definition of [null, 'text', 42, [], { nodes: 'x' }]) {
        const answer = await call<{ valid: boolean; errors: string[] }>('POST', '/api/workflows/validate', {
          definition,
        });
        expect(answer.status).to.equal(200);
        expect(answer.body.valid, JSON.stringify(definition)).to.equal(false);
      }
      expect(existsSync(join(repo.path, '.cairn', 'workflows', 'fine.yaml'))).to.equal(false);
      expect((await call('POST', '/api/workflows/validate', {})).status).to.equal(400);
    });

    it('saves a project workflow under cwd, replaces it, and deletes it; bundled ones cannot be deleted', async () => {
      const path = `/api/workflows/greet?${cwd()}`;
      const missingFolder = await call<Problem>('PUT', path, { definition: SIMPLE('greet') });
      expect(missingFolder.status).to.equal(409);
      expect(missingFolder.body.code).to.equal('workflows_folder_missing');
      mkdirSync(join(repo.path, '.cairn', 'workflows'), { recursive: true });

      expect((await call('PUT', '/api/workflows/greet', { definition: SIMPLE('greet') })).status).to.equal(
        400,
      );
      expect((await call<Problem>('PUT', path, { definition: SIMPLE('other') })).body.code).to.equal(
        'invalid_workflow',
      );
      expect((await call('PUT', path, { definition: { name: 'greet', nodes: [] } })).status).to.equal(400);

      const created = await call<Lookup>('PUT', path, { definition: SIMPLE('greet') });
      expect(created.status).to.equal(201);
      expect(created.body).to.deep.include({ source: 'project', filename: '.cairn/workflows/greet.yaml' });
      expect(readFileSync(join(repo.path, '.cairn', 'workflows', 'greet.yaml'), 'utf8')).to.include(
        'Say hello',
      );
      const replaced = await call<Lookup>('PUT', path, { definition: SIMPLE('greet', 'Wave at $ARGUMENTS') });
      expect(replaced.status).to.equal(200);
      const read = await call<Lookup & { workflow: { nodes: Array<{ prompt: string }> } }>('GET', path);
      expect(read.body.workflow.nodes[0]!.prompt).to.equal('Wave at $ARGUMENTS');

      expect((await call('DELETE', path)).status).to.equal(204);
      expect(existsSync(join(repo.path, '.cairn', 'workflows', 'greet.yaml'))).to.equal(false);
      expect((await call('DELETE', path)).status).to.equal(404);
      const bundled = await call<Problem>('DELETE', `/api/workflows/assist?${cwd()}`);
      expect(bundled.status).to.equal(409);
      expect(bundled.body.code).to.equal('bundled_workflow');
      expect((await call('DELETE', '/api/workflows/assist')).status).to.equal(409);

      // /api/workflows/runs is the run list: a workflow of that name could never be read back.
      const reserved = await call<Problem & { errors: unknown }>('PUT', `/api/workflows/runs?${cwd()}`, {
        definition: SIMPLE('runs'),
      });
      expect(reserved.status).to.equal(400);
      expect(reserved.body.code).to.equal('reserved_workflow_name');
      expect(reserved.body.errors).to.deep.equal([{ path: '/params/name', message: 'is reserved' }]);
      expect(existsSync(join(repo.path, '.cairn', 'workflows', 'runs.yaml'))).to.equal(false);
    });

    it("keeps an editor's text as written, comments included, when it says what the definition says", async () => {
      mkdirSync(join(repo.path, '.cairn', 'workflows'), { recursive: true });
      const path = `/api/workflows/greet?${cwd()}`;
      const text = [
        '# Greets whoever is named',
        'name: greet',
        'description: the greet workflow',
        'nodes:',
        '  - id: only # the one step',
        '    prompt: Say hello to $ARGUMENTS',
        '',
      ].join('\n');
      const saved = await call<Lookup>('PUT', path, { definition: SIMPLE('greet'), text });
      expect(saved.status).to.equal(201);
      expect(readFileSync(join(repo.path, '.cairn', 'workflows', 'greet.yaml'), 'utf8')).to.equal(text);
      const read = await call<Lookup & { text?: string }>('GET', path);
      expect(read.body.text).to.equal(text);
      expect(read.body.workflow.name).to.equal('greet');
      const bundled = await call<Lookup & { text?: string }>('GET', '/api/workflows/assist');
      expect(bundled.body.text).to.match(/^name: assist$/m);

      const mismatch = await call<Problem>('PUT', path, {
        definition: SIMPLE('greet'),
        text: text.replace('Say hello', 'Say goodbye'),
      });
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.code).to.equal('workflow_text_mismatch');
      expect(mismatch.body.errors?.[0]?.path).to.equal('/body/text');
      const broken = await call<Problem>('PUT', path, { definition: SIMPLE('greet'), text: 'name: [greet' });
      expect(broken.status).to.equal(400);
      expect(broken.body.errors?.[0]?.path).to.equal('/body/text');
      expect(readFileSync(join(repo.path, '.cairn', 'workflows', 'greet.yaml'), 'utf8')).to.equal(text);
    });

    it('refuses unsafe names', async () => {
      for (const name of [
        'a..b',
        'a%2Fb',
        '..%2Fetc',
        '.hidden',
        'with space',
        'tab%09name',
        'x'.repeat(65),
      ]) {
        const answer = await call<Problem>('GET', `/api/workflows/${name}`);
        expect(answer.status, name).to.equal(400);
      }
      expect((await call('GET', '/api/workflows/no-such-workflow')).status).to.equal(404);
    });

    it('lists commands: .cairn/commands first, then commands.folder, then bundled', async () => {
      const bundled = await call<{ commands: Array<{ name: string; source: string }> }>(
        'GET',
        '/api/commands',
      );
      expect(bundled.status).to.equal(200);
      expect(bundled.body.commands.length).to.be.greaterThan(3);
      expect(bundled.body.commands.every((command) => command.source === 'bundled')).to.equal(true);
      const overridden = bundled.body.commands[0]!.name;

      mkdirSync(join(repo.path, '.cairn', 'commands'), { recursive: true });
      mkdirSync(join(repo.path, 'prompts'), { recursive: true });
      writeFileSync(
        join(repo.path, '.cairn', 'commands', 'ship.md'),
        '---\ndescription: Ship it\nargument-hint: <version>\n---\nShip $ARGUMENTS\n',
      );
      writeFileSync(join(repo.path, 'prompts', 'ship.md'), 'The other ship\n');
      writeFileSync(join(repo.path, 'prompts', 'tidy.md'), 'Tidy up\n');
      writeFileSync(join(repo.path, 'prompts', `${overridden}.md`), 'Ours\n');
      writeFileSync(join(repo.path, '.cairn', 'config.yaml'), 'commands:\n  folder: prompts\n');
      type Listed = {
        commands: Array<{ name: string; source: string; description?: string; argumentHint?: string }>;
      };
      const listed = await call<Listed>('GET', `/api/commands?${cwd()}`);
      const byName = Object.fromEntries(listed.body.commands.map((command) => [command.name, command]));
      expect(byName.ship).to.deep.equal({
        name: 'ship',
        source: 'project',
        description: 'Ship it',
        argumentHint: '<version>',
      });
      expect(byName.tidy!.source).to.equal('project');
      expect(byName[overridden]!.source).to.equal('project');

      // commands.autoLoad: false leaves the folder's commands out; .cairn/commands/ stays.
      writeFileSync(
        join(repo.path, '.cairn', 'config.yaml'),
        'commands:\n  folder: prompts\n  autoLoad: false\n',
      );
      const notLoaded = await call<Listed>('GET', `/api/commands?${cwd()}`);
      const names = notLoaded.body.commands.map((command) => command.name);
      expect(names).to.include('ship').and.not.include('tidy');

      writeFileSync(
        join(repo.path, '.cairn', 'config.yaml'),
        'commands:\n  folder: ../../outside\ndefaults:\n  loadDefaultCommands: false\n',
      );
      const projectOnly = await call<Listed>('GET', `/api/commands?${cwd()}`);
      expect(projectOnly.body.commands.map((command) => command.name)).to.deep.equal(['ship']);
    });
  });
}
