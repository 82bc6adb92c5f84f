import { expect } from 'chai';
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { validateWorkflowDefinition } from '../../../domain/workflow-definitions/index.js';
import { docExample } from './helpers.js';

const schema = JSON.parse(
  readFileSync(new URL('../../../schemas/workflow-definition.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const schemaAccepts = ajv.compile(schema);

const node = (fields: Record<string, unknown>) => ({ name: 'w', nodes: [{ id: 'a', ...fields }] });
const prompt = (fields: Record<string, unknown>) => node({ prompt: 'x', ...fields });

/** Definitions both must accept. */
const valid: [string, unknown][] = [
  ['the documented example', docExample],
  ['the smallest workflow', node({ prompt: 'x' })],
  ['a command node', node({ command: 'fix-issue.v2' })],
  ['a bash node', node({ bash: 'npm test', output_format: { type: 'object' }, retry: { attempts: 1 } })],
  ['an approval node', node({ approval: { message: 'ok?', capture_response: false }, timeout: '24h' })],
  [
    'every top-level field',
    {
      name: 'a.b_c-1',
      description: '',
      provider: 'claude',
      model: 'opus',
      nodes: [{ id: 'a', prompt: 'x' }],
    },
  ],
  [
    'every node field',
    prompt({ depends_on: [], when: '1 == 1', trigger_rule: 'one_success', provider: 'codex', model: 'm' }),
  ],
  ['retry bounds', prompt({ retry: { attempts: 5, delay: '600s' }, timeout: '1440m' })],
  ['zero delays', prompt({ retry: { attempts: 2, delay: '0m' } })],
  ['zero hours of delay', prompt({ retry: { attempts: 2, delay: '0h' } })],
  ['a short timeout', prompt({ timeout: '1s' })],
  ['a timeout in seconds', prompt({ timeout: '86400s' })],
  ['a timeout in seconds, below the cap', prompt({ timeout: '86399s' })],
  ['a timeout in minutes', prompt({ timeout: '1439m' })],
  ['a JavaScript script node', node({ script: 'console.log(1)', runtime: 'bun', output_format: {} })],
  ['a Python script node with deps', node({ script: 'import httpx', runtime: 'uv', deps: ['httpx>=0.27'] })],
  ['an sh script node naming one command', node({ script: 'ls', runtime: 'sh', retry: { attempts: 2 } })],
  ['a cancel node', node({ cancel: 'nothing to do', when: '1 == 1' })],
  [
    'a for_each node',
    {
      name: 'w',
      nodes: [
        { id: 'list', bash: 'echo "[1, 2]"' },
        { id: 'each', depends_on: ['list'], for_each: '$list.output', concurrency: 20, bash: 'echo "$ITEM"' },
        { id: 'ask', depends_on: ['each'], for_each: '$each.output', prompt: 'look at $ITEM ($ITEM_INDEX)' },
      ],
    },
  ],
  [
    'a workflow node',
    node({ workflow: 'review', message: 'look at $ARGUMENTS', timeout: '2h', when: '1 == 1' }),
  ],
  ['a workflow node without a message', node({ workflow: 'review.v2' })],
  ['100 nodes', { name: 'w', nodes: Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, bash: 'true' })) }],
];

/** Definitions both must reject for their shape. */
const invalid: [string, unknown][] = [
  ['null', null],
  ['a list', [{ name: 'w' }]],
  ['no name', { nodes: [{ id: 'a', prompt: 'x' }] }],
  ['no nodes', { name: 'w' }],
  ['an empty node list', { name: 'w', nodes: [] }],
  ['101 nodes', { name: 'w', nodes: Array.from({ length: 101 }, (_, i) => ({ id: `n${i}`, bash: 'true' })) }],
  ['an unknown top-level key', { name: 'w', nodes: [{ id: 'a', prompt: 'x' }], extra: 1 }],
  ['a name with ..', { name: 'a..b', nodes: [{ id: 'a', prompt: 'x' }] }],
  ['a name with /', { name: 'a/b', nodes: [{ id: 'a', prompt: 'x' }] }],
  ['a name starting with a dot', { name: '.w', nodes: [{ id: 'a', prompt: 'x' }] }],
  ['a 65-character name', { name: 'a'.repeat(65), nodes: [{ id: 'a', prompt: 'x' }] }],
  ['an unknown provider', { name: 'w', provider: 'x', nodes: [{ id: 'a', prompt: 'x' }] }],
  ['an empty model', { name: 'w', model: '', nodes: [{ id: 'a', prompt: 'x' }] }],
  ['a description that is a number', { name: 'w', description: 1, nodes: [{ id: 'a', prompt: 'x' }] }],
  ['a node without id', { name: 'w', nodes: [{ prompt: 'x' }] }],
  ['an id starting with a digit', { name: 'w', nodes: [{ id: '1a', prompt: 'x' }] }],
  ['an id with a dot', { name: 'w', nodes: [{ id: 'a.b', prompt: 'x' }] }],
  ['a node without a kind', node({})],
  ['a node with two kinds', node({ prompt: 'x', bash: 'y' })],
  ['a node with all kinds', node({ prompt: 'x', bash: 'y', command: 'c', approval: { message: 'm' } })],
  ['an unknown node key', prompt({ dependsOn: [] })],
  ['an empty prompt', node({ prompt: '' })],
  ['a blank prompt', node({ prompt: ' \n\t' })],
  ['a command with a path', node({ command: 'a/b' })],
  ['an approval without message', node({ approval: { capture_response: true } })],
  ['an approval with an unknown key', node({ approval: { message: 'm', timeout: '1h' } })],
  ['capture_response as text', node({ approval: { message: 'm', capture_response: 'yes' } })],
  ['depends_on as text', prompt({ depends_on: 'b' })],
  ['depends_on with a number', prompt({ depends_on: [1] })],
  [
    'depends_on with a repeat',
    {
      name: 'w',
      nodes: [
        { id: 'b', prompt: 'x' },
        { id: 'a', prompt: 'x', depends_on: ['b', 'b'] },
      ],
    },
  ],
  ['when as a boolean', prompt({ when: true })],
  ['an empty when', prompt({ when: '' })],
  ['a 1001-character when', prompt({ when: '1'.repeat(1001) })],
  ['an unknown trigger rule', prompt({ trigger_rule: 'none_failed' })],
  ['an unknown node provider', prompt({ provider: 'gemini' })],
  ['provider on bash', node({ bash: 'x', provider: 'claude' })],
  ['model on approval', node({ approval: { message: 'm' }, model: 'm' })],
  ['retry on approval', node({ approval: { message: 'm' }, retry: { attempts: 1 } })],
  ['output_format on approval', node({ approval: { message: 'm' }, output_format: {} })],
  ['retry without attempts', prompt({ retry: {} })],
  ['six attempts', prompt({ retry: { attempts: 6 } })],
  ['zero attempts', prompt({ retry: { attempts: 0 } })],
  ['fractional attempts', prompt({ retry: { attempts: 2.5 } })],
  ['an unknown retry key', prompt({ retry: { attempts: 2, backoff: 2 } })],
  ['a delay over ten minutes', prompt({ retry: { attempts: 2, delay: '601s' } })],
  ['a delay in hours', prompt({ retry: { attempts: 2, delay: '1h' } })],
  ['a delay of 11 minutes', prompt({ retry: { attempts: 2, delay: '11m' } })],
  ['a delay as a number', prompt({ retry: { attempts: 2, delay: 30 } })],
  ['a zero timeout', prompt({ timeout: '0s' })],
  ['a timeout over a day in seconds', prompt({ timeout: '86401s' })],
  ['a timeout over a day in minutes', prompt({ timeout: '1441m' })],
  ['a timeout over a day in hours', prompt({ timeout: '25h' })],
  ['a timeout with leading zeros', prompt({ timeout: '01h' })],
  ['a timeout in days', prompt({ timeout: '1d' })],
  ['a fractional timeout', prompt({ timeout: '1.5h' })],
  ['a script without runtime', node({ script: 'console.log(1)' })],
  ['an unknown runtime', node({ script: 'puts 1', runtime: 'ruby' })],
  ['deps on JavaScript', node({ script: 'console.log(1)', runtime: 'node', deps: ['x'] })],
  ['deps that are not a list', node({ script: 'print(1)', runtime: 'python', deps: 'httpx' })],
  ['an option as a dep', node({ script: 'print(1)', runtime: 'python', deps: ['--index-url=x'] })],
  ['runtime on a bash node', node({ bash: 'true', runtime: 'sh' })],
  ['provider on a script node', node({ script: 'print(1)', runtime: 'uv', provider: 'claude' })],
  ['an empty cancel reason', node({ cancel: '' })],
  ['retry on a cancel node', node({ cancel: 'x', retry: { attempts: 2 } })],
  ['timeout on a cancel node', node({ cancel: 'x', timeout: '1m' })],
  ['output_format on a cancel node', node({ cancel: 'x', output_format: {} })],
  ['a script and a cancel on one node', node({ cancel: 'x', script: 'print(1)', runtime: 'uv' })],
  ['for_each that is not a reference', node({ bash: 'x', for_each: 'files' })],
  ['for_each as a list', node({ bash: 'x', for_each: ['a', 'b'] })],
  ['for_each on an approval', node({ approval: { message: 'm' }, for_each: '$b.output' })],
  [
    'for_each on a loop',
    node({ loop: { prompt: 'x', until: 'D', max_iterations: 2 }, for_each: '$b.output' }),
  ],
  ['concurrency without for_each', node({ bash: 'x', concurrency: 2 })],
  ['a concurrency of 0', node({ bash: 'x', for_each: '$b.output', concurrency: 0 })],
  ['a concurrency of 21', node({ bash: 'x', for_each: '$b.output', concurrency: 21 })],
  ['persist_session on a for_each node', prompt({ for_each: '$b.output', persist_session: true })],
  ['a workflow node with a path', node({ workflow: '../review' })],
  ['a workflow node with retry', node({ workflow: 'review', retry: { attempts: 2 } })],
  ['a workflow node with a model', node({ workflow: 'review', model: 'opus' })],
  ['a workflow node with output_format', node({ workflow: 'review', output_format: {} })],
  ['a workflow node with for_each', node({ workflow: 'review', for_each: '$b.output' })],
  ['a message on a prompt node', prompt({ message: 'x' })],
  ['an empty message', node({ workflow: 'review', message: ' ' })],
  ['output_format as text', prompt({ output_format: 'json' })],
  ['output_format as a list', prompt({ output_format: [] })],
];

/** Beyond JSON Schema: the shape is right, the graph or a reference is not. */
const graphOnly: [string, unknown][] = [
  [
    'duplicate ids',
    {
      name: 'w',
      nodes: [
        { id: 'a', prompt: 'x' },
        { id: 'a', prompt: 'y' },
      ],
    },
  ],
  ['an unknown dependency', prompt({ depends_on: ['b'] })],
  ['a self-dependency', prompt({ depends_on: ['a'] })],
  [
    'a cycle',
    {
      name: 'w',
      nodes: [
        { id: 'a', prompt: 'x', depends_on: ['b'] },
        { id: 'b', prompt: 'y', depends_on: ['a'] },
      ],
    },
  ],
  ['a condition that does not parse', prompt({ when: '$a.output =' })],
  ['for_each over an unknown node', prompt({ for_each: '$b.output' })],
  ['a workflow that runs itself', { name: 'w', nodes: [{ id: 'again', workflow: 'w' }] }],
  ['$ITEM outside a for_each node', prompt({ prompt: 'look at $ITEM.file' })],
  ['$ITEM_INDEX outside a for_each node', prompt({ prompt: 'number $ITEM_INDEX' })],
  [
    'a reference that is not upstream',
    {
      name: 'w',
      nodes: [
        { id: 'a', prompt: 'x' },
        { id: 'b', prompt: '$a.output' },
      ],
    },
  ],
  ['a named script (a file in Archon)', node({ script: 'fetch-pages', runtime: 'bun' })],
  [
    '$<id>.output in bash',
    {
      name: 'w',
      nodes: [
        { id: 'a', prompt: 'x' },
        { id: 'b', depends_on: ['a'], bash: 'echo $a.output' },
      ],
    },
  ],
];

describe('workflow definitions: the JSON Schema', () => {
  it('is a valid draft-07 schema', () => {
    expect(ajv.validateSchema(schema)).to.equal(true);
  });

  for (const [what, input] of valid) {
    it(`accepts ${what}, as the validator does`, () => {
      expect(schemaAccepts(input), JSON.stringify(schemaAccepts.errors)).to.equal(true);
      const result = validateWorkflowDefinition(input);
      expect(result.valid, result.valid ? '' : result.errors.join('\n')).to.equal(true);
    });
  }

  for (const [what, input] of invalid) {
    it(`rejects ${what}, as the validator does`, () => {
      expect(schemaAccepts(input)).to.equal(false);
      expect(validateWorkflowDefinition(input).valid).to.equal(false);
    });
  }

  for (const [what, input] of graphOnly) {
    it(`leaves ${what} to the validator`, () => {
      expect(schemaAccepts(input), JSON.stringify(schemaAccepts.errors)).to.equal(true);
      expect(validateWorkflowDefinition(input).valid).to.equal(false);
    });
  }

  it('agrees with the validator on every duration from 0 to 1500 in each unit', () => {
    const retry = (delay: string) => prompt({ retry: { attempts: 1, delay } });
    for (const unit of ['s', 'm', 'h']) {
      for (let n = 0; n <= 1500; n += 1) {
        for (const input of [retry(`${n}${unit}`), prompt({ timeout: `${n}${unit}` })]) {
          expect(schemaAccepts(input), JSON.stringify(input)).to.equal(
            validateWorkflowDefinition(input).valid,
          );
        }
      }
    }
    for (const seconds of [86_399, 86_400, 86_401, 90_000, 99_999, 100_000]) {
      const input = prompt({ timeout: `${seconds}s` });
      expect(schemaAccepts(input), String(seconds)).to.equal(validateWorkflowDefinition(input).valid);
    }
  });
});
