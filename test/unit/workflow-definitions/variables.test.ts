import { expect } from 'chai';
import {
  bashEnvironment,
  findReferences,
  outputVariableName,
  substitute,
  usesBaseBranch,
  type VariableValues,
} from '../../../domain/workflow-definitions/index.js';
import { definition } from './helpers.js';

const values: VariableValues = {
  arguments: 'fix the $HOME bug',
  baseBranch: 'main',
  docsDir: 'docs/',
  artifactsDir: '/home/u/.cairn/workspaces/acme/w/artifacts/r1',
  runId: 'r1',
  outputs: {
    plan: 'the plan',
    classify: { kind: 'bug', labels: ['a', 'b'], nested: { deep: { x: 1 } }, nothing: null },
    raw: '{"kind":"feature"}',
    tricky: 'says $ARGUMENTS and $plan.output',
  },
};

describe('workflow definitions: variables', () => {
  describe('findReferences', () => {
    it('finds builtins and output references with their fields and offsets', () => {
      expect(
        findReferences('Do $ARGUMENTS on $BASE_BRANCH; see $plan.output and $classify.output.kind.'),
      ).to.deep.equal([
        { kind: 'builtin', name: 'ARGUMENTS', offset: 3, text: '$ARGUMENTS' },
        { kind: 'builtin', name: 'BASE_BRANCH', offset: 17, text: '$BASE_BRANCH' },
        { kind: 'output', nodeId: 'plan', path: [], offset: 35, text: '$plan.output' },
        { kind: 'output', nodeId: 'classify', path: ['kind'], offset: 52, text: '$classify.output.kind' },
      ]);
    });

    it('finds all five builtins, and only as whole words', () => {
      const refs = findReferences(
        '$ARGUMENTS $BASE_BRANCH $DOCS_DIR $ARTIFACTS_DIR $RUN_ID $RUN_IDS $ARGUMENTS_X $HOME $docs_dir',
      );
      expect(refs.map((ref) => ref.text)).to.deep.equal([
        '$ARGUMENTS',
        '$BASE_BRANCH',
        '$DOCS_DIR',
        '$ARTIFACTS_DIR',
        '$RUN_ID',
      ]);
    });

    it('reads ids with dashes, nested fields and list indexes, and not .outputs or a trailing dot', () => {
      expect(
        findReferences('$fix-tests.output.a.b.0 $plan.outputs $plan.output. $plan.output.-x').map(
          (r) => r.text,
        ),
      ).to.deep.equal(['$fix-tests.output.a.b.0', '$plan.output', '$plan.output']);
      expect(findReferences('$ARGUMENTS.output')).to.deep.include({
        kind: 'output',
        nodeId: 'ARGUMENTS',
        path: [],
        offset: 0,
        text: '$ARGUMENTS.output',
      });
    });
  });

  describe('substitute', () => {
    it('replaces builtins and outputs', () => {
      expect(
        substitute('$ARGUMENTS|$BASE_BRANCH|$DOCS_DIR|$ARTIFACTS_DIR|$RUN_ID|$plan.output', values),
      ).to.equal('fix the $HOME bug|main|docs/|/home/u/.cairn/workspaces/acme/w/artifacts/r1|r1|the plan');
    });

    it('reads fields, lists and mappings as JSON, and missing things as empty text', () => {
      expect(substitute('[$classify.output.kind]', values)).to.equal('[bug]');
      expect(substitute('[$classify.output.labels]', values)).to.equal('[["a","b"]]');
      expect(substitute('[$classify.output.labels.1]', values)).to.equal('[b]');
      expect(substitute('[$classify.output.nested]', values)).to.equal('[{"deep":{"x":1}}]');
      expect(substitute('[$classify.output.nested.deep.x]', values)).to.equal('[1]');
      expect(substitute('[$classify.output.nothing]', values)).to.equal('[]');
      expect(substitute('[$classify.output.absent.more]', values)).to.equal('[]');
      expect(substitute('[$unknown.output]', values)).to.equal('[]');
      expect(substitute('[$raw.output.kind]', values)).to.equal('[feature]');
      expect(substitute('[$classify.output]', values)).to.equal(
        '[{"kind":"bug","labels":["a","b"],"nested":{"deep":{"x":1}},"nothing":null}]',
      );
    });

    it('substitutes once: values that contain variables are not expanded again', () => {
      expect(substitute('$tricky.output / $ARGUMENTS', values)).to.equal(
        'says $ARGUMENTS and $plan.output / fix the $HOME bug',
      );
    });

    it('leaves unknown $WORDS, .outputs and a sentence-ending dot alone', () => {
      expect(substitute('$HOME $PATH $plan.outputs; $plan.output.', values)).to.equal(
        '$HOME $PATH $plan.outputs; the plan.',
      );
    });

    it('reads a missing base branch as empty text', () => {
      expect(substitute('[$BASE_BRANCH]', { ...values, baseBranch: undefined })).to.equal('[]');
    });

    it('keeps $ patterns in values literal (no replacement-pattern surprises)', () => {
      expect(substitute('$ARGUMENTS', { ...values, arguments: "$& $1 $' $$" })).to.equal("$& $1 $' $$");
    });
  });

  describe('bash environment', () => {
    it('names output variables by id in capitals with - as _', () => {
      expect(outputVariableName('plan')).to.equal('PLAN_OUTPUT');
      expect(outputVariableName('fix-tests')).to.equal('FIX_TESTS_OUTPUT');
      expect(outputVariableName('Run_2')).to.equal('RUN_2_OUTPUT');
    });

    it('gives the builtins and each upstream output', () => {
      expect(bashEnvironment(values, ['plan', 'classify', 'never-ran'])).to.deep.equal({
        ARGUMENTS: 'fix the $HOME bug',
        BASE_BRANCH: 'main',
        DOCS_DIR: 'docs/',
        ARTIFACTS_DIR: '/home/u/.cairn/workspaces/acme/w/artifacts/r1',
        RUN_ID: 'r1',
        PLAN_OUTPUT: 'the plan',
        CLASSIFY_OUTPUT: '{"kind":"bug","labels":["a","b"],"nested":{"deep":{"x":1}},"nothing":null}',
        NEVER_RAN_OUTPUT: '',
      });
    });

    it('leaves BASE_BRANCH out when it is not known', () => {
      expect(bashEnvironment({ ...values, baseBranch: undefined }, [])).to.not.have.property('BASE_BRANCH');
    });

    it('names the bundled scripts folder when given', () => {
      expect(bashEnvironment({ ...values, scriptsDir: '/opt/cairn/defaults/scripts/' }, [])).to.include({
        CAIRN_SCRIPTS_DIR: '/opt/cairn/defaults/scripts/',
      });
      expect(bashEnvironment(values, [])).to.not.have.property('CAIRN_SCRIPTS_DIR');
    });
  });

  describe('usesBaseBranch', () => {
    const workflow = (node: Record<string, unknown>) =>
      definition({ name: 'w', nodes: [{ id: 'a', ...node }] });

    it('is true for prompts, approval messages and bash scripts that use it', () => {
      expect(usesBaseBranch(workflow({ prompt: 'diff against $BASE_BRANCH' }))).to.equal(true);
      expect(usesBaseBranch(workflow({ approval: { message: 'merge into $BASE_BRANCH?' } }))).to.equal(true);
      expect(usesBaseBranch(workflow({ bash: 'git diff "$BASE_BRANCH"' }))).to.equal(true);
      expect(usesBaseBranch(workflow({ bash: 'git diff "${BASE_BRANCH}"...HEAD' }))).to.equal(true);
      expect(usesBaseBranch(workflow({ bash: 'git diff "${BASE_BRANCH:-main}"' }))).to.equal(true);
    });

    it('is false otherwise', () => {
      expect(usesBaseBranch(workflow({ prompt: 'do $ARGUMENTS' }))).to.equal(false);
      expect(usesBaseBranch(workflow({ prompt: 'mention $BASE_BRANCHES' }))).to.equal(false);
      expect(usesBaseBranch(workflow({ bash: 'echo $BASE_BRANCH_X' }))).to.equal(false);
      expect(usesBaseBranch(workflow({ command: 'review' }))).to.equal(false);
    });

    it('reads command bodies when given', () => {
      const wf = workflow({ command: 'review' });
      expect(usesBaseBranch(wf, { review: 'Review the diff from $BASE_BRANCH' })).to.equal(true);
      expect(usesBaseBranch(wf, { other: '$BASE_BRANCH', review: 'no' })).to.equal(false);
    });
  });
});
