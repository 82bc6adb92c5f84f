import { expect } from 'chai';
import {
  evaluateCondition,
  findReferences,
  parseCondition,
  substitute,
  validateWorkflowDefinition,
} from '../../../domain/workflow-definitions/index.js';
import { randomSource } from './helpers.js';

const KEYS = [
  'name',
  'description',
  'provider',
  'model',
  'nodes',
  'id',
  'prompt',
  'command',
  'bash',
  'approval',
  'message',
  'capture_response',
  'depends_on',
  'when',
  'trigger_rule',
  'retry',
  'attempts',
  'delay',
  'timeout',
  'output_format',
  '__proto__',
  'constructor',
  'toString',
  '',
];
const STRINGS = [
  '',
  'a',
  'b',
  'claude',
  'all_done',
  '10m',
  '0s',
  '$a.output',
  '$b.output.x',
  "$a.output == 'x'",
  '((',
  'w',
  '$A_OUTPUT',
  '$BASE_BRANCH',
  '\u0000',
  '..',
  'é',
  '1e999',
];

/** A random value of limited depth, built mostly from the words definitions use. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (depth <= 0 || roll < 0.3) {
    return pick<unknown>([
      null,
      undefined,
      true,
      false,
      0,
      1,
      5,
      -1,
      2.5,
      NaN,
      Infinity,
      pick(STRINGS),
      pick(STRINGS),
    ]);
  }
  if (roll < 0.55)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth - 1));
  const mapping: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 6); i > 0; i -= 1) {
    Object.defineProperty(mapping, pick(KEYS), {
      value: randomValue(random, depth - 1),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return mapping;
}

/** A definition-like value: usually a name and some nodes with random fields. */
function randomDefinition(random: () => number): unknown {
  if (random() < 0.1) return randomValue(random, 4);
  const nodes = Array.from({ length: Math.floor(random() * 6) }, (_, i) => {
    const node = randomValue(random, 3);
    if (node && typeof node === 'object' && !Array.isArray(node) && random() < 0.8) {
      Object.assign(node, { id: random() < 0.9 ? String.fromCharCode(97 + (i % 3)) : 7 });
    }
    return node;
  });
  return { name: random() < 0.9 ? 'w' : randomValue(random, 1), nodes };
}

describe('workflow definitions: robustness', () => {
  it('answers for any input without throwing (2,000 random definitions)', () => {
    const random = randomSource(20240611);
    let valid = 0;
    for (let i = 0; i < 2000; i += 1) {
      const input = randomDefinition(random);
      const result = validateWorkflowDefinition(input);
      if (result.valid) valid += 1;
      else {
        expect(result.errors.length).to.be.within(1, 100);
        for (const error of result.errors) expect(error).to.be.a('string').and.not.equal('');
      }
    }
    expect(valid).to.be.below(2000);
  });

  it('handles hostile inputs: cycles, getters that throw, deep nesting, huge values', () => {
    const cyclic: Record<string, unknown> = { name: 'w' };
    cyclic.nodes = [cyclic];
    expect(validateWorkflowDefinition(cyclic).valid).to.equal(false);

    const schema: Record<string, unknown> = { type: 'object' };
    schema.properties = { self: schema };
    expect(
      validateWorkflowDefinition({ name: 'w', nodes: [{ id: 'a', prompt: 'x', output_format: schema }] })
        .valid,
    ).to.equal(true);

    const throwing = Object.defineProperty({ name: 'w' }, 'nodes', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(validateWorkflowDefinition(throwing)).to.deep.equal({
      valid: false,
      errors: ['the definition could not be read (no)'],
    });

    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(validateWorkflowDefinition({ name: 'w', nodes: [{ id: 'a', prompt: deep }] }).valid).to.equal(
      false,
    );
    expect(validateWorkflowDefinition(deep).valid).to.equal(false);

    const huge = 'x'.repeat(5_000_000);
    const result = validateWorkflowDefinition({
      name: huge,
      [huge]: 1,
      nodes: [{ id: huge, prompt: `$${huge}.output ${huge}` }],
    });
    expect(result.valid).to.equal(false);
    if (!result.valid) for (const error of result.errors) expect(error.length).to.be.below(300);

    expect(validateWorkflowDefinition({ name: 'w', nodes: new Array(1_000_000) }).valid).to.equal(false);
    expect(validateWorkflowDefinition(Object.create(null)).valid).to.equal(false);
  });

  it('accepts a large but legal definition', () => {
    const nodes = Array.from({ length: 100 }, (_, i) => ({
      id: `n${i}`,
      depends_on: Array.from({ length: i }, (_, j) => `n${j}`),
      when: i > 0 ? `$n${i - 1}.output || $n0.output contains 'x'` : undefined,
      prompt: Array.from({ length: i }, (_, j) => `$n${j}.output`).join(' ') || 'start',
    })).map((node) => (node.when === undefined ? { id: node.id, prompt: node.prompt } : node));
    expect(validateWorkflowDefinition({ name: 'w', nodes }).valid).to.equal(true);
  });

  it('parses random condition text without throwing', () => {
    const random = randomSource(7);
    const pieces = [
      '$a.output',
      '$b.output.x',
      '==',
      '!=',
      '<',
      '>=',
      'contains',
      '&&',
      '||',
      '!',
      'not',
      'and',
      'or',
      '(',
      ')',
      "'s'",
      '"d"',
      '1',
      '-2.5',
      'true',
      'null',
      '=',
      '&',
      '$',
      '#',
      "'",
      ' ',
    ];
    for (let i = 0; i < 3000; i += 1) {
      const text = Array.from(
        { length: Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join(' ');
      const parsed = parseCondition(text);
      if (parsed.ok) {
        expect(
          evaluateCondition(parsed.condition, { a: randomValue(random, 2), b: randomValue(random, 2) }),
        ).to.be.a('boolean');
      } else {
        expect(parsed.error.offset).to.be.within(0, text.length);
        expect(parsed.error.message).to.match(/at character \d+|longer than/);
      }
    }
  });

  it('scans huge texts and refuses absurd nesting', () => {
    const text = '$' + 'a'.repeat(2_000_000) + ' $a.output'.repeat(10_000) + '$'.repeat(100_000);
    expect(findReferences(text)).to.have.length(10_000);
    const replaced = substitute(text, {
      arguments: '',
      docsDir: '',
      artifactsDir: '',
      runId: '',
      outputs: { a: 'x' },
    });
    expect(replaced.endsWith(' x'.repeat(3) + '$'.repeat(100_000))).to.equal(true);
    expect(parseCondition('('.repeat(5000)).ok).to.equal(false);
  });
});
