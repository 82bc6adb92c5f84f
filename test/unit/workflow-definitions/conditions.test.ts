import { expect } from 'chai';
import {
  conditionReferences,
  evaluateCondition,
  parseCondition,
  type Condition,
} from '../../../domain/workflow-definitions/index.js';

function parse(text: string): Condition {
  const result = parseCondition(text);
  if (!result.ok) throw new Error(`did not parse: ${result.error.message}`);
  return result.condition;
}

function parseError(text: string) {
  const result = parseCondition(text);
  if (result.ok) throw new Error(`parsed: ${text}`);
  return result.error;
}

/** The tree without offsets, as a compact string: (and (== $a.output 'x') ...). */
function shape(condition: Condition): string {
  switch (condition.type) {
    case 'output':
      return ['$' + condition.nodeId, 'output', ...condition.path].join('.');
    case 'literal':
      return JSON.stringify(condition.value);
    case 'not':
      return `(not ${shape(condition.operand)})`;
    case 'and':
    case 'or':
      return `(${condition.type} ${shape(condition.left)} ${shape(condition.right)})`;
    case 'compare':
      return `(${condition.operator} ${shape(condition.left)} ${shape(condition.right)})`;
  }
}

const evaluate = (text: string, outputs: Record<string, unknown>) => evaluateCondition(parse(text), outputs);

describe('workflow definitions: conditions', () => {
  describe('parsing', () => {
    it('parses the examples from the format description', () => {
      expect(shape(parse("$classify.output.kind == 'bug'"))).to.equal('(== $classify.output.kind "bug")');
      expect(shape(parse("$tests.output contains 'FAIL' || $lint.output"))).to.equal(
        '(or (contains $tests.output "FAIL") $lint.output)',
      );
      expect(shape(parse("not ($plan.output.risk == 'high')"))).to.equal(
        '(not (== $plan.output.risk "high"))',
      );
    });

    it('reads values: references with nested fields, both quotes, numbers and keywords', () => {
      expect(shape(parse('$fix-tests.output.a.b_c.0'))).to.equal('$fix-tests.output.a.b_c.0');
      expect(shape(parse('"double" == \'single\''))).to.equal('(== "double" "single")');
      expect(shape(parse('-1.5 < 3'))).to.equal('(< -1.5 3)');
      expect(shape(parse('true != false'))).to.equal('(!= true false)');
      expect(shape(parse('$a.output == null'))).to.equal('(== $a.output null)');
    });

    it('reads escapes in strings', () => {
      const condition = parse(String.raw`'it\'s' == "a\"b\n\t\\"`);
      expect(condition).to.include({ type: 'compare' });
      if (condition.type !== 'compare') return;
      expect(condition.left).to.include({ value: "it's" });
      expect(condition.right).to.include({ value: 'a"b\n\t\\' });
    });

    it('binds comparisons tighter than not, not tighter than and, and tighter than or', () => {
      expect(shape(parse('$a.output || $b.output && $c.output'))).to.equal(
        '(or $a.output (and $b.output $c.output))',
      );
      expect(shape(parse('$a.output and $b.output or $c.output'))).to.equal(
        '(or (and $a.output $b.output) $c.output)',
      );
      expect(shape(parse("! $a.output == 'x' && $b.output"))).to.equal(
        '(and (not (== $a.output "x")) $b.output)',
      );
      expect(shape(parse('($a.output || $b.output) && $c.output'))).to.equal(
        '(and (or $a.output $b.output) $c.output)',
      );
      expect(shape(parse('!!$a.output'))).to.equal('(not (not $a.output))');
      expect(shape(parse('$a.output && $b.output && $c.output'))).to.equal(
        '(and (and $a.output $b.output) $c.output)',
      );
    });

    it('tells != from !, and <= from <', () => {
      expect(shape(parse('$a.output!=1'))).to.equal('(!= $a.output 1)');
      expect(shape(parse('$a.output<=1'))).to.equal('(<= $a.output 1)');
      expect(shape(parse('$a.output>=-1'))).to.equal('(>= $a.output -1)');
      expect(shape(parse('!($a.output)'))).to.equal('(not $a.output)');
    });

    it('records where each part starts', () => {
      const condition = parse("  $a.output == 'x'");
      expect(condition).to.deep.equal({
        type: 'compare',
        operator: '==',
        offset: 12,
        left: { type: 'output', nodeId: 'a', path: [], offset: 2 },
        right: { type: 'literal', value: 'x', offset: 15 },
      });
    });

    const errors: [string, string, number][] = [
      ['', 'empty condition at character 1', 0],
      ['   ', 'empty condition at character 1', 0],
      ["$a.output == 'x", "unterminated string at character 14; no closing '", 13],
      ['$a.output = 1', '"=" alone is not an operator at character 11; write "=="', 10],
      ['$a.output & $b.output', '"&" alone is not an operator at character 11; write "&&"', 10],
      ['$a.output | $b.output', '"|" alone is not an operator at character 11; write "||"', 10],
      [
        '$ARGUMENTS == 1',
        '"$ARGUMENTS" is not a node output at character 1; conditions read $<id>.output or $<id>.output.<field>',
        0,
      ],
      [
        '$plan.outputs',
        '"$plan.outputs" is not a node output at character 1; conditions read $<id>.output or $<id>.output.<field>',
        0,
      ],
      ['bug == 1', 'unknown word "bug" at character 1; quote text, and write outputs as $<id>.output', 0],
      [
        '$a.output == TRUE',
        'unknown word "TRUE" at character 14; quote text, and write outputs as $<id>.output',
        13,
      ],
      ['$a.output # x', 'unexpected character "#" at character 11', 10],
      [
        '($a.output == 1',
        'expected ")", found the end of the condition at character 16; it would close the "(" at character 1',
        15,
      ],
      ['$a.output == 1)', 'unexpected ")" at character 15', 14],
      [
        '$a.output == 1 == 2',
        'unexpected "==" at character 16; comparisons cannot be chained: join them with &&',
        15,
      ],
      ['$a.output ==', 'expected a value, found the end of the condition at character 13', 12],
      ['&& $a.output', 'expected a value, found "&&" at character 1', 0],
      ['$a.output $b.output', 'unexpected "$b.output" at character 11', 10],
      ['()', 'expected a value, found ")" at character 2', 1],
      ['not', 'expected a value, found the end of the condition at character 4', 3],
    ];
    for (const [text, message, offset] of errors) {
      it(`reports ${JSON.stringify(text)} with its position`, () => {
        expect(parseError(text)).to.deep.equal({ message, offset });
      });
    }

    it('limits length and nesting', () => {
      expect(parseError('1 == ' + '1'.repeat(1000)).message).to.equal('longer than 1000 characters');
      expect(parseCondition('('.repeat(32) + '1' + ')'.repeat(32)).ok).to.equal(true);
      expect(parseError('('.repeat(33) + '1' + ')'.repeat(33))).to.deep.equal({
        message: 'nested more than 32 levels deep at character 33',
        offset: 32,
      });
      expect(parseError('!'.repeat(40) + '1').message).to.equal(
        'nested more than 32 levels deep at character 33',
      );
    });
  });

  describe('references', () => {
    it('lists every output reference in order, with its fields', () => {
      expect(
        conditionReferences(parse("$a.output.x.y == $b.output || !($c.output contains 'z') && $a.output")),
      ).to.deep.equal([
        { nodeId: 'a', path: ['x', 'y'] },
        { nodeId: 'b', path: [] },
        { nodeId: 'c', path: [] },
        { nodeId: 'a', path: [] },
      ]);
      expect(conditionReferences(parse('1 < 2'))).to.deep.equal([]);
    });
  });

  describe('evaluation', () => {
    const truth: [unknown, boolean][] = [
      [undefined, false],
      [null, false],
      ['', false],
      ['  \n', false],
      ['false', false],
      ['False', false],
      ['null', false],
      ['NULL', false],
      ['0', false],
      ['0.0', false],
      [' 0\n', false],
      [false, false],
      [0, false],
      [[], false],
      [{}, false],
      ['no', true],
      ['0x', true],
      ['true', true],
      ['1', true],
      ['-1', true],
      [true, true],
      [1, true],
      [-0.5, true],
      [['x'], true],
      [{ a: 1 }, true],
    ];
    for (const [value, expected] of truth) {
      it(`reads ${JSON.stringify(value) ?? 'a missing output'} alone as ${expected}`, () => {
        expect(evaluate('$a.output', value === undefined ? {} : { a: value })).to.equal(expected);
        expect(evaluate('!$a.output', value === undefined ? {} : { a: value })).to.equal(!expected);
      });
    }

    const table: [string, Record<string, unknown>, boolean][] = [
      ["$a.output == 'bug'", { a: 'bug' }, true],
      ["$a.output == 'bug'", { a: 'bug\n' }, false],
      ["$a.output == 'Bug'", { a: 'bug' }, false],
      ["$a.output != 'bug'", { a: 'feature' }, true],
      ['$a.output == 10', { a: '10.0' }, true],
      ['$a.output == 10', { a: ' 10\n' }, true],
      ['$a.output > 9', { a: '10' }, true],
      ["$a.output > '9'", { a: '10' }, true],
      ["$a.output > 'abc'", { a: '10' }, false],
      ["'10' < '9'", {}, false],
      ["'b' > 'a'", {}, true],
      ["'B' < 'a'", {}, true],
      ['$a.output.count >= 3', { a: { count: 3 } }, true],
      ['$a.output.count < 3', { a: { count: 3 } }, false],
      ['$a.output.count <= 2.5', { a: { count: 2.4 } }, true],
      ['$a.output.missing == null', { a: { count: 3 } }, true],
      ["$a.output.missing == ''", { a: {} }, true],
      ['$a.output.empty == null', { a: { empty: null } }, true],
      ['$b.output == null', {}, true],
      ['$a.output.ok == true', { a: { ok: true } }, true],
      ["$a.output.ok == 'true'", { a: { ok: true } }, true],
      ['$a.output.ok', { a: { ok: false } }, false],
      ['$a.output.items.1 == 20', { a: { items: [10, 20] } }, true],
      ['$a.output.items.5', { a: { items: [10, 20] } }, false],
      ["$a.output.kind == 'bug'", { a: '{"kind": "bug"}' }, true],
      ["$a.output.kind == 'bug'", { a: 'not json {' }, false],
      ['$a.output.constructor', { a: {} }, false],
      ['$a.output.length', { a: 'text' }, false],
      ["$a.output contains 'FAIL'", { a: 'tests: 1 FAIL' }, true],
      ["$a.output contains 'fail'", { a: 'tests: 1 FAIL' }, false],
      ["$a.output.tags contains 'x'", { a: { tags: ['x', 'y'] } }, true],
      ["$a.output.tags contains 'xy'", { a: { tags: ['x', 'y'] } }, false],
      ['$a.output.tags contains 2', { a: { tags: ['1', '2.0'] } }, true],
      ["$a.output.meta contains 'k'", { a: { meta: { k: 1 } } }, true],
      ["$a.output contains ''", {}, true],
      ["$a.output contains 'x'", {}, false],
      ["$a.output.n contains '2'", { a: { n: 123 } }, true],
      ["$a.output contains 'FAIL' || $b.output", { a: 'ok', b: 'lint errors' }, true],
      ["$a.output contains 'FAIL' || $b.output", { a: 'ok', b: '' }, false],
      ["not ($a.output.risk == 'high')", { a: { risk: 'low' } }, true],
      ['$a.output and $b.output', { a: 'x', b: 'y' }, true],
      ['$a.output and $b.output', { a: 'x' }, false],
      ['($a.output || $b.output) == true', { b: 'y' }, true],
      ['true && !false', {}, true],
      ['null', {}, false],
      ['0', {}, false],
      ["'text'", {}, true],
    ];
    for (const [text, outputs, expected] of table) {
      it(`${text} with ${JSON.stringify(outputs)} is ${expected}`, () => {
        expect(evaluate(text, outputs)).to.equal(expected);
      });
    }

    it('short-circuits and reads only own properties of the outputs', () => {
      expect(evaluate('$toString.output', {})).to.equal(false);
      expect(evaluate('$a.output || $b.output.x.y.z', { a: 'yes' })).to.equal(true);
    });
  });
});
