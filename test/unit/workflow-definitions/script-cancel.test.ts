import { expect } from 'chai';
import { definition, errorsOf } from './helpers.js';
import { usesBaseBranch } from '../../../domain/workflow-definitions/index.js';

const one = (fields: Record<string, unknown>) => ({ name: 'w', nodes: [{ id: 'a', ...fields }] });

describe('workflow definitions: script and cancel nodes', () => {
  it('normalizes a script node: runtime, its language, deps, retry and the default timeout', () => {
    const [node] = definition(
      one({ script: 'import httpx', runtime: 'uv', deps: ['httpx>=0.27'], retry: { attempts: 2 } }),
    ).nodes;
    expect(node).to.deep.include({
      kind: 'script',
      script: 'import httpx',
      runtime: 'uv',
      language: 'python',
      deps: ['httpx>=0.27'],
      retry: { attempts: 2, delayMs: 30_000 },
      timeoutMs: 3_600_000,
    });
    const runtimes = ['sh', 'bun', 'node', 'uv', 'python'].map(
      (runtime) => definition(one({ script: 'x = 1;', runtime })).nodes[0],
    );
    expect(runtimes.map((n) => n?.kind === 'script' && n.language)).to.deep.equal([
      'sh',
      'javascript',
      'javascript',
      'python',
      'python',
    ]);
  });

  it('takes a single word as code for sh, and as a script file name (refused) for the others', () => {
    expect(definition(one({ script: 'ls', runtime: 'sh' })).nodes[0]).to.include({ kind: 'script' });
    expect(errorsOf(one({ script: 'fetch-pages', runtime: 'node' }))).to.deep.equal([
      'nodes[0] "a": script: "fetch-pages" names a script file; Cairn runs inline code only (write the code in the node)',
    ]);
  });

  it('normalizes a cancel node without timeout or retry', () => {
    const [node] = definition(one({ cancel: 'stop here' })).nodes;
    expect(node).to.deep.include({
      kind: 'cancel',
      cancel: 'stop here',
      timeoutMs: undefined,
      retry: undefined,
    });
  });

  it('checks $<id>.output in a cancel reason as in prompts', () => {
    expect(
      errorsOf({
        name: 'w',
        nodes: [
          { id: 'b', prompt: 'x' },
          { id: 'a', cancel: 'because $b.output' },
        ],
      }),
    ).to.deep.equal([
      'nodes[1] "a": cancel: $b.output: "b" is not upstream of this node (add it to depends_on)',
    ]);
  });

  it('points a script at the environment variable of an upstream output, with its field rule', () => {
    const input = {
      name: 'w',
      nodes: [
        { id: 'plan', prompt: 'x', output_format: { type: 'object' } },
        { id: 'a', depends_on: ['plan'], runtime: 'bun', script: 'const p = $plan.output.steps;' },
      ],
    };
    expect(errorsOf(input)).to.deep.equal([
      'nodes[1] "a": script: $plan.output.steps is not replaced in scripts; read the environment variable $PLAN_OUTPUT instead (JSON text)',
    ]);
  });

  it('knows when a script or a cancel reason needs the base branch', () => {
    expect(
      usesBaseBranch(definition(one({ runtime: 'node', script: 'console.log(process.env.BASE_BRANCH)' }))),
    ).to.equal(true);
    expect(
      usesBaseBranch(
        definition(one({ runtime: 'node', script: 'console.log(process.env.MY_BASE_BRANCHES)' })),
      ),
    ).to.equal(false);
    expect(usesBaseBranch(definition(one({ cancel: 'not on $BASE_BRANCH' })))).to.equal(true);
  });

  it('lists every kind when a node has none', () => {
    expect(errorsOf(one({}))).to.deep.equal([
      'nodes[0] "a": no kind: a node needs one of prompt, command, bash, approval, script, cancel, loop or workflow',
    ]);
  });
});
