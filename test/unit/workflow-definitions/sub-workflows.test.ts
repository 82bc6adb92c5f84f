import { expect } from 'chai';
import { definition, errorsOf } from './helpers.js';
import { usesBaseBranch } from '../../../domain/workflow-definitions/index.js';
import { callProblem, checkCalls } from '../../../services/workflow-definitions/sub-workflow-calls.js';
import type { WorkflowEntry } from '../../../services/workflow-definitions/definition-files.js';

const one = (name: string, fields: Record<string, unknown>) => ({ name, nodes: [{ id: 'a', ...fields }] });

/** A discovered workflow whose nodes run the named workflows, in order. */
function entry(name: string, ...calls: string[]): WorkflowEntry {
  const nodes =
    calls.length === 0
      ? [{ id: 'work', bash: 'true' }]
      : calls.map((target, index) => ({ id: `call-${index}`, workflow: target }));
  return {
    name,
    workflow: { name, nodes },
    filename: `${name}.yaml`,
    path: `/repo/.cairn/workflows/${name}.yaml`,
    source: 'project',
  };
}

describe('workflow definitions: sub-workflow nodes', () => {
  it('normalizes a workflow node: its message defaults to $ARGUMENTS, no timeout unless given', () => {
    expect(definition(one('w', { workflow: 'review' })).nodes[0]).to.deep.include({
      kind: 'workflow',
      workflow: 'review',
      message: '$ARGUMENTS',
      timeoutMs: undefined,
      retry: undefined,
    });
    const timed = definition(one('w', { workflow: 'review', message: 'check $BASE_BRANCH', timeout: '2h' }));
    expect(timed.nodes[0]).to.deep.include({ message: 'check $BASE_BRANCH', timeoutMs: 7_200_000 });
    expect(usesBaseBranch(timed)).to.equal(true);
  });

  it('names the node and field of each mistake', () => {
    expect(errorsOf(one('w', { workflow: 'a/b' }))).to.deep.equal([
      'nodes[0] "a": workflow: "a/b" is not a workflow name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")',
    ]);
    expect(errorsOf(one('w', { workflow: 'w' }))).to.deep.equal([
      'nodes[0] "a": workflow: a workflow cannot run itself',
    ]);
    expect(errorsOf(one('w', { prompt: 'x', message: 'y' }))).to.deep.equal([
      'nodes[0] "a": message: only workflow nodes have a message (a prompt node says it in prompt)',
    ]);
    expect(errorsOf(one('w', { workflow: 'r', retry: { attempts: 2 } }))).to.deep.equal([
      'nodes[0] "a": retry: workflow nodes are not retried',
    ]);
    expect(
      errorsOf({
        name: 'w',
        nodes: [
          { id: 'b', prompt: 'x' },
          { id: 'a', workflow: 'r', message: 'after $b.output' },
        ],
      }),
    ).to.deep.equal([
      'nodes[1] "a": message: $b.output: "b" is not upstream of this node (add it to depends_on)',
    ]);
  });

  it('refuses a call to a workflow that does not exist, and any cycle, naming the chain', () => {
    const workflows = [
      entry('a', 'b'),
      entry('b', 'c'),
      entry('c', 'a'),
      entry('d', 'b'),
      entry('e', 'x'),
      entry('f'),
    ];
    expect(callProblem(workflows[0]!, workflows)).to.equal(
      'nodes[0] "call-0": workflow: "b" leads back to "a" (a -> b -> c -> a): a workflow cannot run itself, even through others',
    );
    expect(callProblem(workflows[4]!, workflows)).to.equal(
      'nodes[0] "call-0": workflow: no workflow named "x"',
    );
    const { sound, problems } = checkCalls(workflows);
    expect(sound.map((w) => w.name)).to.deep.equal(['f']);
    expect(problems.map((p) => p.entry.name)).to.deep.equal(['a', 'b', 'c', 'e', 'd']);
    expect(problems.at(-1)!.error).to.equal(
      'nodes[0] "call-0": workflow: "b" cannot run (see its own error)',
    );
  });

  it('accepts the same workflow called twice, and chains that end', () => {
    const workflows = [entry('top', 'mid', 'leaf'), entry('mid', 'leaf'), entry('leaf')];
    expect(checkCalls(workflows).problems).to.deep.equal([]);
    expect(callProblem(entry('new', 'top'), workflows)).to.equal(undefined);
  });
});
