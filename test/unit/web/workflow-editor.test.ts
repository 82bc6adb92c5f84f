import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { validateWorkflowDefinition } from '../../../domain/workflow-definitions/validate.js';
import { definitionNodes } from '../../../web/src/workflows/definition-graph.js';
import { addNode, PALETTE } from '../../../web/src/workflows/node-palette.js';
import { locateProblem, messagePath } from '../../../web/src/workflows/problem-location.js';

const TEXT = [
  '# a comment that stays',
  'name: demo',
  'description: a demo',
  'nodes:',
  '  - id: plan',
  '    prompt: Plan $ARGUMENTS',
  '  - id: build',
  '    depends_on: [plan]',
  '    bogus: 1',
  '    loop:',
  '      prompt: go',
  '      max_iterations: 99',
  '',
].join('\n');

/** The line (from 1) a validator message is placed on in TEXT, and the text it covers. */
function placed(message: string, text = TEXT) {
  const range = locateProblem(parseDocument(text), text, message);
  return { line: text.slice(0, range.from).split('\n').length, covers: text.slice(range.from, range.to) };
}

describe('the workflow editor', () => {
  describe('where a validation message points', () => {
    it('reads the path a message starts with', () => {
      expect(messagePath('nodes[1] "build": loop.max_iterations: must be ...')).to.deep.equal({
        path: ['nodes', 1, 'loop', 'max_iterations'],
      });
      expect(messagePath('nodes[3]: id: must be a string')).to.deep.equal({ path: ['nodes', 3, 'id'] });
      expect(messagePath('unknown key "foo" (did you mean "for"?)')).to.deep.equal({
        path: [],
        unknownKey: 'foo',
      });
      expect(messagePath('nodes: must list at least 1 node')).to.deep.equal({ path: ['nodes'] });
      expect(messagePath('the definition could not be read')).to.deep.equal({ path: [] });
    });

    it("lands on the key the validator's real messages name", () => {
      const definition = parseDocument(TEXT).toJS() as unknown;
      const result = validateWorkflowDefinition(definition);
      expect(result.valid).to.equal(false);
      const errors = result.valid ? [] : result.errors;
      const unknown = errors.find((message) => message.includes('bogus'))!;
      expect(placed(unknown)).to.deep.equal({ line: 9, covers: 'bogus' });
      const limit = errors.find((message) => message.includes('max_iterations'))!;
      expect(placed(limit)).to.deep.equal({ line: 12, covers: 'max_iterations' });
    });

    it('falls back to the deepest part that exists, then to the first line', () => {
      expect(placed('nodes[1] "build": retry.attempts: must be a whole number')).to.deep.equal({
        line: 7,
        covers: 'id: build',
      });
      expect(placed('nodes[9] "nope": bash: must be a string')).to.deep.equal({ line: 4, covers: 'nodes' });
      expect(placed('something without a path')).to.deep.equal({ line: 1, covers: '# a comment that stays' });
      expect(placed('anything', '')).to.deep.equal({ line: 1, covers: '' });
    });
  });

  describe('the graph beside the text', () => {
    it('draws what can be read while typing, skipping the rest', () => {
      const definition = {
        nodes: [
          { id: 'a', prompt: 'x' },
          { id: 'b', depends_on: ['a', 3], for_each: '$a.output', bash: 'echo' },
          { id: 'a', bash: 'duplicate' },
          'not a node',
          { prompt: 'no id yet' },
          { id: 'c' },
        ],
      };
      expect(definitionNodes(definition)).to.deep.equal([
        { id: 'a', dependsOn: [], kind: 'prompt', fanOut: false },
        { id: 'b', dependsOn: ['a'], kind: 'bash', fanOut: true },
        { id: 'c', dependsOn: [], kind: undefined, fanOut: false },
      ]);
      expect(definitionNodes(null)).to.deep.equal([]);
      expect(definitionNodes({ nodes: 'x' })).to.deep.equal([]);
    });
  });

  describe('the palette', () => {
    for (const { kind } of PALETTE) {
      it(`adds a ${kind} node that validates, after the last node, keeping comments`, () => {
        const start = 'name: demo\ndescription: d\nnodes:\n  - id: first # kept\n    prompt: hi\n';
        const added = addNode(start, kind);
        if ('error' in added) throw new Error(added.error);
        expect(added.id).to.equal(`${kind}-1`);
        expect(added.text).to.include('# kept');
        const definition = parseDocument(added.text).toJS() as { nodes: Array<Record<string, unknown>> };
        expect(definition.nodes[1]).to.include({ id: `${kind}-1` });
        expect(definition.nodes[1]!.depends_on).to.deep.equal(['first']);
        expect(validateWorkflowDefinition(definition)).to.deep.include({ valid: true });
        const again = addNode(added.text, kind);
        expect('id' in again && again.id).to.equal(`${kind}-2`);
      });
    }

    it('starts a definition in an empty text and refuses broken YAML', () => {
      const added = addNode('', 'bash');
      if ('error' in added) throw new Error(added.error);
      expect(parseDocument(added.text).toJS()).to.deep.equal({
        name: 'new-workflow',
        nodes: [{ id: 'bash-1', bash: 'git status --short' }],
      });
      expect(addNode('name: [broken', 'bash'))
        .to.have.property('error')
        .that.match(/Fix the YAML/);
      expect(addNode('- a list', 'bash')).to.have.property('error');
      expect(addNode('nodes: 3', 'bash'))
        .to.have.property('error')
        .that.match(/must be a list/);
    });
  });
});
