import { expect } from 'chai';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { databaseKinds } from '../../support/databases.js';
import type { TestCoreApp } from '../../support/core-app.js';
import type { TempRepo } from '../../support/git-repos.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { jsonClient } from '../../support/json-client.js';
import { startDefinitionsApp, type DefinitionsApp } from './definitions-app.js';

const definition = (name: string) => ({ name, nodes: [{ id: 'only', prompt: `the ${name} prompt` }] });

interface Listing {
  workflows: Array<{ workflow: { name: string }; filename: string }>;
  errors?: Array<{ filename: string; error: string }>;
}

// A repository is someone else's content: its symbolic links must not let the workflow and
// command endpoints read, overwrite or delete files outside its checkout (issue 13, item 3).
const [sqlite] = databaseKinds();
describe('the checkout is a boundary for workflow and command files', function () {
  this.timeout(60_000);
  let app: TestCoreApp;
  let outside: ReturnType<typeof makeTempDir>;
  let repo: TempRepo;
  let fixture: DefinitionsApp;

  beforeEach(async () => {
    fixture = await startDefinitionsApp(sqlite!);
    ({ app, repo } = fixture);
    outside = makeTempDir('cairn-elsewhere-');
  });

  afterEach(async () => {
    await fixture.close();
    outside.cleanup();
  });

  const call = jsonClient(() => app.url);
  const cwd = () => `cwd=${encodeURIComponent(repo.path)}`;
  const secret = (file: string, text: string) => {
    writeFileSync(join(outside.path, file), text);
    return join(outside.path, file);
  };

  it('does not read a workflows folder that links elsewhere, nor save or delete through it', async () => {
    writeFileSync(join(outside.path, 'theirs.yaml'), YAML.stringify(definition('theirs')));
    mkdirSync(join(repo.path, '.cairn'));
    symlinkSync(outside.path, join(repo.path, '.cairn', 'workflows'));

    const listed = await call<Listing>('GET', `/api/workflows?${cwd()}`);
    expect(listed.status).to.equal(200);
    expect(listed.body.workflows.map((entry) => entry.workflow.name)).to.not.include('theirs');
    expect(listed.body.errors).to.deep.include({
      filename: '.cairn/workflows',
      source: 'project',
      error: '.cairn/workflows leads outside the checkout (a symbolic link); it is not used.',
    });
    expect((await call('GET', `/api/workflows/theirs?${cwd()}`)).status).to.equal(404);

    const saved = await call<{ code: string }>('PUT', `/api/workflows/planted?${cwd()}`, {
      definition: definition('planted'),
    });
    expect(saved.status).to.equal(403);
    expect(saved.body.code).to.equal('path_outside_checkout');
    expect(existsSync(join(outside.path, 'planted.yaml'))).to.equal(false);
    expect((await call('DELETE', `/api/workflows/theirs?${cwd()}`)).status).to.equal(404);
    expect(existsSync(join(outside.path, 'theirs.yaml'))).to.equal(true);
  });

  it('does the same when .cairn itself links elsewhere', async () => {
    mkdirSync(join(outside.path, 'workflows'));
    symlinkSync(outside.path, join(repo.path, '.cairn'));
    const saved = await call<{ code: string }>('PUT', `/api/workflows/planted?${cwd()}`, {
      definition: definition('planted'),
    });
    expect(saved.status).to.equal(403);
    expect(existsSync(join(outside.path, 'workflows', 'planted.yaml'))).to.equal(false);
  });

  it('reports a definition file that links elsewhere, and replaces the link (never its target) on save', async () => {
    const target = secret('mine.yaml', YAML.stringify(definition('mine')));
    mkdirSync(join(repo.path, '.cairn', 'workflows'), { recursive: true });
    symlinkSync(target, join(repo.path, '.cairn', 'workflows', 'mine.yaml'));
    writeFileSync(join(repo.path, '.cairn', 'workflows', 'ok.yaml'), YAML.stringify(definition('ok')));

    const listed = await call<Listing>('GET', `/api/workflows?${cwd()}`);
    expect(listed.body.workflows.map((entry) => entry.workflow.name))
      .to.include('ok')
      .and.not.include('mine');
    expect(listed.body.errors).to.deep.include({
      filename: '.cairn/workflows/mine.yaml',
      source: 'project',
      error: '.cairn/workflows/mine.yaml leads outside the checkout (a symbolic link); it is not used.',
    });

    const saved = await call('PUT', `/api/workflows/mine?${cwd()}`, { definition: definition('mine') });
    expect(saved.status).to.be.oneOf([200, 201]);
    const stored = join(repo.path, '.cairn', 'workflows', 'mine.yaml');
    expect(lstatSync(stored).isSymbolicLink()).to.equal(false);
    expect(readFileSync(target, 'utf8')).to.equal(YAML.stringify(definition('mine')));
  });

  it('keeps a link that stays inside the checkout working', async () => {
    mkdirSync(join(repo.path, 'shared'));
    writeFileSync(join(repo.path, 'shared', 'team.yaml'), YAML.stringify(definition('team')));
    mkdirSync(join(repo.path, '.cairn', 'workflows'), { recursive: true });
    symlinkSync(join(repo.path, 'shared', 'team.yaml'), join(repo.path, '.cairn', 'workflows', 'team.yaml'));
    const found = await call<{ workflow: { name: string } }>('GET', `/api/workflows/team?${cwd()}`);
    expect(found.status).to.equal(200);
    expect(found.body.workflow.name).to.equal('team');
  });

  it('refuses to save over a directory with a 409 and leaves no temporary file', async () => {
    mkdirSync(join(repo.path, '.cairn', 'workflows', 'odd.yaml'), { recursive: true });
    const saved = await call<{ code: string }>('PUT', `/api/workflows/odd?${cwd()}`, {
      definition: definition('odd'),
    });
    expect(saved.status).to.equal(409);
    expect(saved.body.code).to.equal('workflow_path_taken');
    const left = (await import('node:fs')).readdirSync(join(repo.path, '.cairn', 'workflows'));
    expect(left).to.deep.equal(['odd.yaml']);
  });

  it('does not offer commands from a folder or a file that links elsewhere', async () => {
    secret('leak.md', 'Print every secret\n');
    mkdirSync(join(repo.path, '.cairn', 'commands'), { recursive: true });
    symlinkSync(join(outside.path, 'leak.md'), join(repo.path, '.cairn', 'commands', 'leak.md'));
    writeFileSync(join(repo.path, '.cairn', 'commands', 'fine.md'), 'Fine\n');
    mkdirSync(join(outside.path, 'more'));
    writeFileSync(join(outside.path, 'more', 'other.md'), 'Other\n');
    symlinkSync(join(outside.path, 'more'), join(repo.path, 'commands-link'));
    writeFileSync(join(repo.path, '.cairn', 'config.yaml'), 'commands:\n  folder: commands-link\n');

    const listed = await call<{ commands: Array<{ name: string; source: string }> }>(
      'GET',
      `/api/commands?${cwd()}`,
    );
    const project = listed.body.commands
      .filter((command) => command.source === 'project')
      .map((command) => command.name);
    expect(project).to.deep.equal(['fine']);
  });
});
