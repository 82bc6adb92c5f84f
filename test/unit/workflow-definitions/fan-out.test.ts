import { expect } from 'chai';
import { definition, errorsOf } from './helpers.js';
import { bashEnvironment, findReferences, substitute } from '../../../domain/workflow-definitions/index.js';
import { fanOutList } from '../../../workflows/runs/run-fan-out.js';

const listThen = (fields: Record<string, unknown>, list: Record<string, unknown> = { bash: 'echo []' }) => ({
  name: 'w',
  nodes: [
    { id: 'list', ...list },
    { id: 'each', depends_on: ['list'], ...fields },
  ],
});

const values = { arguments: '', docsDir: 'docs', artifactsDir: 'a', runId: 'r', outputs: {} };

describe('workflow definitions: for_each (fan-out)', () => {
  it('normalizes for_each and concurrency (default 4), with fields of a structured list', () => {
    const plain = definition(listThen({ for_each: '$list.output', bash: 'echo "$ITEM"' })).nodes[1];
    expect(plain!.forEach).to.deep.equal({
      source: '$list.output',
      nodeId: 'list',
      path: [],
      concurrency: 4,
    });
    const structured = definition(
      listThen(
        { for_each: ' $list.output.files ', concurrency: 3, prompt: 'review $ITEM.path ($ITEM_INDEX)' },
        { bash: 'echo {}', output_format: { type: 'object' } },
      ),
    ).nodes[1];
    expect(structured!.forEach).to.deep.equal({
      source: '$list.output.files',
      nodeId: 'list',
      path: ['files'],
      concurrency: 3,
    });
  });

  it('names the node and the field of each mistake', () => {
    expect(errorsOf(listThen({ for_each: 'list', bash: 'x' }))).to.deep.equal([
      'nodes[1] "each": for_each: "list" is not a reference to an upstream output, such as "$plan.output.files"',
    ]);
    expect(errorsOf(listThen({ for_each: '$list.output', concurrency: 0, bash: 'x' }))).to.deep.equal([
      'nodes[1] "each": concurrency: must be a whole number from 1 to 20, not 0',
    ]);
    expect(errorsOf(listThen({ concurrency: 2, bash: 'x' }))).to.deep.equal([
      'nodes[1] "each": concurrency: only a node with for_each has a concurrency',
    ]);
    expect(errorsOf(listThen({ for_each: '$list.output', approval: { message: 'ok?' } }))).to.deep.equal([
      'nodes[1] "each": for_each: only prompt, command, bash and script nodes run for each element, not approval nodes',
    ]);
    expect(errorsOf(listThen({ for_each: '$list.output', prompt: 'x', context: 'shared' }))).to.deep.equal([
      `nodes[1] "each": context: a for_each node's elements each start a fresh session`,
    ]);
  });

  it('checks the list reference like any other: upstream, and fields only of structured outputs', () => {
    expect(errorsOf(listThen({ for_each: '$list.output.files', bash: 'x' }))).to.deep.equal([
      'nodes[1] "each": for_each: $list.output.files: "list" has no output_format, so its output has no fields',
    ]);
    expect(
      errorsOf({
        name: 'w',
        nodes: [
          { id: 'list', bash: 'echo []' },
          { id: 'each', for_each: '$list.output', bash: 'x' },
        ],
      }),
    ).to.deep.equal([
      'nodes[1] "each": for_each: $list.output: "list" is not upstream of this node (add it to depends_on)',
    ]);
  });

  it('refuses $ITEM and $ITEM_INDEX in a node without for_each', () => {
    expect(errorsOf(listThen({ prompt: 'look at $ITEM.path' }))).to.deep.equal([
      'nodes[1] "each": prompt: $ITEM.path is set only in a node with for_each',
    ]);
    expect(errorsOf(listThen({ prompt: 'number $ITEM_INDEX' }))).to.deep.equal([
      'nodes[1] "each": prompt: $ITEM_INDEX is set only in a node with for_each',
    ]);
  });

  it('lets a downstream node read fields of a for_each output, which is a list', () => {
    const nodes = definition({
      name: 'w',
      nodes: [
        { id: 'list', bash: 'echo []' },
        { id: 'each', depends_on: ['list'], for_each: '$list.output', bash: 'x' },
        { id: 'after', depends_on: ['each'], prompt: 'first: $each.output.0' },
      ],
    }).nodes;
    expect(nodes.map((node) => node.id)).to.deep.equal(['list', 'each', 'after']);
  });

  it('substitutes $ITEM (text as it is, else JSON), its fields and $ITEM_INDEX; bash reads ITEM', () => {
    const item = { item: { path: 'a.ts', lines: [3, 4] }, itemIndex: 2 };
    expect(substitute('$ITEM.path:$ITEM.lines.1 #$ITEM_INDEX $ITEM', { ...values, ...item })).to.equal(
      'a.ts:4 #2 {"path":"a.ts","lines":[3,4]}',
    );
    expect(substitute('[$ITEM] $ITEMS', { ...values, item: 'plain', itemIndex: 0 })).to.equal(
      '[plain] $ITEMS',
    );
    expect(bashEnvironment({ ...values, item: 'plain', itemIndex: 0 }, [])).to.include({
      ITEM: 'plain',
      ITEM_INDEX: '0',
    });
    expect(bashEnvironment(values, [])).to.not.have.any.keys('ITEM', 'ITEM_INDEX');
    expect(findReferences('$ITEM_INDEX $ITEM.a.0').map((ref) => ref.kind)).to.deep.equal(['builtin', 'item']);
  });

  it('reads the list from a value or from text holding JSON, and says what it found instead', () => {
    expect(fanOutList(['a', 1], '$l.output')).to.deep.equal({ items: ['a', 1] });
    expect(fanOutList('[{"a": 1}]\n', '$l.output')).to.deep.equal({ items: [{ a: 1 }] });
    expect(fanOutList('a.ts b.ts', '$l.output')).to.deep.equal({
      error: 'for_each: $l.output is not a list (it is the text "a.ts b.ts")',
    });
    expect(fanOutList({ files: [] }, '$l.output')).to.deep.equal({
      error: 'for_each: $l.output is not a list (it is a mapping)',
    });
    expect(fanOutList(undefined, '$l.output.files')).to.deep.equal({
      error: 'for_each: $l.output.files is not a list (it is missing)',
    });
    expect(fanOutList(new Array(501).fill(0), '$l.output')).to.deep.equal({
      error: 'for_each: $l.output has 501 elements; at most 500 are run',
    });
  });
});
