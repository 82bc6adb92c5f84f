import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { discoverCommands } from '../../../services/workflow-definitions/discover-commands.js';
import {
  discoverWorkflows,
  findWorkflow,
} from '../../../services/workflow-definitions/discover-workflows.js';
import {
  deleteProjectWorkflow,
  saveProjectWorkflow,
} from '../../../services/workflow-definitions/workflow-store.js';
import { FolderCache } from '../../../services/workflow-definitions/folder-cache.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const definition = (name: string, prompt = 'Say hello') => ({ name, nodes: [{ id: 'only', prompt }] });

describe('workflow and command discovery, cached per folder', () => {
  let bundled: ReturnType<typeof makeTempDir>;
  let project: ReturnType<typeof makeTempDir>;

  beforeEach(() => {
    bundled = makeTempDir('cairn-bundled-');
    project = makeTempDir('cairn-project-');
    mkdirSync(join(project.path, '.cairn', 'workflows'), { recursive: true });
    mkdirSync(join(project.path, '.cairn', 'commands'), { recursive: true });
  });
  afterEach(() => {
    bundled.cleanup();
    project.cleanup();
  });

  const writeWorkflow = (file: string, body: object) =>
    writeFileSync(join(project.path, '.cairn', 'workflows', file), YAML.stringify(body));
  const writeCommand = (file: string, text: string) =>
    writeFileSync(join(project.path, '.cairn', 'commands', file), text);
  const options = () => ({ cwd: project.path, loadBundled: true, bundledDir: bundled.path });
  const names = async () => (await discoverWorkflows(options())).workflows.map((entry) => entry.name);

  it('parses a folder once while it does not change, and shares frozen entries', async () => {
    writeFileSync(join(bundled.path, 'shipped.yaml'), YAML.stringify(definition('shipped')));
    writeWorkflow('mine.yaml', definition('mine'));
    const first = await discoverWorkflows(options());
    const second = await discoverWorkflows(options());
    expect(first.workflows.map((entry) => entry.name)).to.deep.equal(['mine', 'shipped']);
    for (const [index, entry] of first.workflows.entries()) expect(second.workflows[index]).to.equal(entry);
    expect(Object.isFrozen(first.workflows[0]!.workflow)).to.equal(true);
  });

  it('lists a new file, reads an edited file again and drops a deleted one', async () => {
    writeWorkflow('a.yaml', definition('a', 'first prompt'));
    expect(await names()).to.deep.equal(['a']);

    writeWorkflow('b.yaml', definition('b'));
    expect(await names()).to.deep.equal(['a', 'b']);

    writeWorkflow('a.yaml', definition('a', 'an edited, longer prompt'));
    const edited = await findWorkflow('a', options());
    expect((edited!.workflow.nodes as Array<{ prompt: string }>)[0]!.prompt).to.equal(
      'an edited, longer prompt',
    );

    rmSync(join(project.path, '.cairn', 'workflows', 'b.yaml'));
    expect(await names()).to.deep.equal(['a']);

    writeFileSync(join(bundled.path, 'shipped.yaml'), YAML.stringify(definition('shipped')));
    expect(await names()).to.deep.equal(['a', 'shipped']);
  });

  it('shows a save or a delete of the store at once', async () => {
    writeWorkflow('a.yaml', definition('a'));
    expect(await names()).to.deep.equal(['a']);
    const saved = await saveProjectWorkflow(project.path, 'c', definition('c'));
    expect(saved.replaced).to.equal(false);
    expect(await names()).to.deep.equal(['a', 'c']);
    await deleteProjectWorkflow(saved.entry, project.path);
    expect(await names()).to.deep.equal(['a']);
  });

  it('finds the file named after a workflow before discovery, from the cached read', async () => {
    writeWorkflow('a.yaml', definition('x', 'from a.yaml'));
    writeWorkflow('x.yaml', definition('x', 'from x.yaml'));
    expect((await discoverWorkflows(options())).workflows.map((entry) => entry.filename)).to.deep.equal([
      '.cairn/workflows/a.yaml',
    ]);
    expect((await findWorkflow('x', options()))!.filename).to.equal('.cairn/workflows/x.yaml');
  });

  it('caches command folders the same way', async () => {
    const commandOptions = { cwd: project.path, loadBundled: true, bundledDir: bundled.path };
    writeCommand('ship.md', '---\ndescription: Ship it\n---\nShip\n');
    writeFileSync(join(bundled.path, 'tidy.md'), 'Tidy up\n');
    const first = await discoverCommands(commandOptions);
    expect(first.map((command) => command.name)).to.deep.equal(['ship', 'tidy']);
    expect((await discoverCommands(commandOptions))[0]).to.equal(first[0]);

    writeCommand('ship.md', '---\ndescription: Ship it now\n---\nShip\n');
    writeCommand('wrap.md', 'Wrap up\n');
    const changed = await discoverCommands(commandOptions);
    expect(changed.map((command) => [command.name, command.description])).to.deep.equal([
      ['ship', 'Ship it now'],
      ['tidy', undefined],
      ['wrap', undefined],
    ]);
    rmSync(join(project.path, '.cairn', 'commands', 'wrap.md'));
    expect((await discoverCommands(commandOptions)).map((command) => command.name)).to.deep.equal([
      'ship',
      'tidy',
    ]);
  });

  it("reads Cairn's own folders once: a fixed folder is not checked again", async () => {
    const cache = new FolderCache<number>();
    let loads = 0;
    const load = async () => (loads += 1);
    writeFileSync(join(bundled.path, 'one.yaml'), 'a');
    expect(await cache.read(bundled.path, 'v', load, { fixed: true })).to.equal(1);
    writeFileSync(join(bundled.path, 'two.yaml'), 'b');
    expect(await cache.read(bundled.path, 'v', load, { fixed: true })).to.equal(1);
    // The same folder read as an ordinary one sees the change.
    expect(await cache.read(bundled.path, 'v', load)).to.equal(2);
  });

  it('gives the same frozen listing while no folder changes, and a new one after a change', async () => {
    writeWorkflow('a.yaml', definition('a'));
    const first = await discoverWorkflows(options());
    expect(await discoverWorkflows(options())).to.equal(first);
    expect(Object.isFrozen(first.workflows)).to.equal(true);
    writeWorkflow('b.yaml', definition('b'));
    const second = await discoverWorkflows(options());
    expect(second).to.not.equal(first);
    expect(second.workflows.map((entry) => entry.name)).to.deep.equal(['a', 'b']);
  });
});
