import { expect } from 'chai';
import { validateWorkflowDefinition } from '../../../domain/workflow-definitions/index.js';
import { definition, docExample, errorsOf } from './helpers.js';

/** A workflow of one node, with the node's fields. */
const one = (node: Record<string, unknown>) => ({ name: 'w', nodes: [{ id: 'a', ...node }] });
/** Errors of a workflow `a` (prompt) then `b` with the given fields. */
const second = (node: Record<string, unknown>) =>
  errorsOf({
    name: 'w',
    nodes: [
      { id: 'a', prompt: 'a' },
      { id: 'b', ...node },
    ],
  });

describe('workflow definitions: validation', () => {
  describe('a valid definition', () => {
    it('accepts the example from the format description and normalizes it', () => {
      const result = validateWorkflowDefinition(docExample);
      expect(result.valid).to.equal(true);
      if (!result.valid) return;
      const [plan, approve, implement, tests] = result.definition.nodes;
      expect(result.definition.name).to.equal('plan-implement-validate');
      expect(result.definition.isolation).to.equal('worktree');
      expect(plan).to.deep.include({ id: 'plan', kind: 'prompt', dependsOn: [], triggerRule: 'all_success' });
      expect(plan).to.deep.include({
        timeoutMs: 3_600_000,
        retry: undefined,
        when: undefined,
        outputFormat: undefined,
      });
      expect(approve).to.deep.include({
        kind: 'approval',
        approval: { message: 'Approve this plan? $plan.output', captureResponse: true },
        timeoutMs: undefined,
      });
      expect(implement).to.deep.include({ dependsOn: ['approve'] });
      expect(tests).to.deep.include({
        kind: 'bash',
        bash: 'npm test',
        retry: { attempts: 2, delayMs: 10_000 },
      });
    });

    it('normalizes every field', () => {
      const schema = { type: 'object', properties: { kind: { type: 'string' } } };
      const wf = definition({
        name: 'all.fields_1',
        description: 'Everything.',
        provider: 'codex',
        model: 'gpt-5',
        isolation: 'none',
        nodes: [
          {
            id: 'classify',
            command: 'classify-issue',
            provider: 'claude',
            model: 'opus',
            output_format: schema,
          },
          {
            id: 'fix',
            depends_on: ['classify'],
            when: "$classify.output.kind == 'bug'",
            trigger_rule: 'all_done',
            prompt: 'Fix: $classify.output.kind',
            retry: { attempts: 3 },
            timeout: '2h',
          },
          { id: 'ask', depends_on: ['fix'], approval: { message: 'ok?' }, timeout: '1h' },
        ],
      });
      expect(wf).to.deep.include({
        name: 'all.fields_1',
        description: 'Everything.',
        provider: 'codex',
        model: 'gpt-5',
        isolation: 'none',
      });
      expect(wf.nodes[0]).to.deep.include({
        kind: 'command',
        command: 'classify-issue',
        provider: 'claude',
        model: 'opus',
      });
      expect(wf.nodes[0]!.outputFormat).to.equal(schema);
      expect(wf.nodes[1]).to.deep.include({
        triggerRule: 'all_done',
        retry: { attempts: 3, delayMs: 30_000 },
        timeoutMs: 7_200_000,
        whenSource: "$classify.output.kind == 'bug'",
      });
      expect(wf.nodes[1]!.when).to.include({ type: 'compare', operator: '==' });
      expect(wf.nodes[2]).to.deep.include({
        approval: { message: 'ok?', captureResponse: false },
        timeoutMs: 3_600_000,
      });
    });

    it('gives a result that survives JSON (it is passed to workflow code)', () => {
      const wf = definition(docExample);
      expect(JSON.parse(JSON.stringify(wf))).to.deep.equal(JSON.parse(JSON.stringify(wf)));
      const withWhen = definition({
        name: 'w',
        nodes: [
          { id: 'a', prompt: 'x' },
          { id: 'b', depends_on: ['a'], when: '$a.output', prompt: 'y' },
        ],
      });
      expect(JSON.parse(JSON.stringify(withWhen.nodes[1]!.when))).to.deep.equal(withWhen.nodes[1]!.when);
    });

    it('accepts the bounds themselves', () => {
      definition(one({ prompt: 'x', retry: { attempts: 1, delay: '0s' }, timeout: '1s' }));
      definition(one({ prompt: 'x', retry: { attempts: 5, delay: '10m' }, timeout: '24h' }));
      definition({ name: 'a'.repeat(64), nodes: [{ id: 'a'.repeat(64), prompt: 'x' }] });
      definition({
        name: 'w',
        nodes: Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, bash: 'true' })),
      });
    });
  });

  describe('the top level', () => {
    const cases: [string, unknown, string[]][] = [
      ['null', null, ['the definition must be a mapping with a name and nodes, not null']],
      ['a list', [], ['the definition must be a mapping with a name and nodes, not a list']],
      ['a string', 'name: x', ['the definition must be a mapping with a name and nodes, not a string']],
      ['a number', 3, ['the definition must be a mapping with a name and nodes, not a number']],
      ['nothing', undefined, ['the definition must be a mapping with a name and nodes, not undefined']],
      ['an empty mapping', {}, ['name: required', 'nodes: required']],
      [
        'unknown keys',
        { name: 'w', nodes: [{ id: 'a', prompt: 'x' }], nmae: 1, Nodes: [], extra: true },
        [
          'unknown key "nmae" (did you mean "name"?)',
          'unknown key "Nodes" (did you mean "nodes"?)',
          'unknown key "extra"',
        ],
      ],
      [
        'a name of the wrong type',
        { name: 5, nodes: [{ id: 'a', prompt: 'x' }] },
        ['name: must be a string, not a number'],
      ],
      [
        'bad names',
        { name: '../etc', nodes: [{ id: 'a', prompt: 'x' }] },
        [
          'name: "../etc" must be 1 to 64 characters from a-z, A-Z, 0-9, "-", "_", ".", starting with a letter or digit, without ".."',
        ],
      ],
      [
        'bad provider, model and description',
        { name: 'w', provider: 'gpt', model: ' ', description: ['x'], nodes: [{ id: 'a', prompt: 'x' }] },
        [
          'description: must be a string, not a list',
          'provider: must be one of claude, codex, not "gpt"',
          'model: must not be empty',
        ],
      ],
      [
        'an unknown isolation',
        { name: 'w', isolation: 'container', nodes: [{ id: 'a', prompt: 'x' }] },
        ['isolation: must be one of worktree, none, not "container"'],
      ],
      ['nodes not a list', { name: 'w', nodes: { a: 1 } }, ['nodes: must be a list of nodes, not a mapping']],
      ['no nodes', { name: 'w', nodes: [] }, ['nodes: must list at least 1 node']],
      [
        'too many nodes',
        { name: 'w', nodes: Array.from({ length: 101 }, (_, i) => ({ id: `n${i}`, bash: 'true' })) },
        ['nodes: must list at most 100 nodes, not 101'],
      ],
    ];
    for (const [what, input, errors] of cases) {
      it(`reports ${what}`, () => {
        expect(errorsOf(input)).to.deep.equal(errors);
      });
    }

    it('rejects names with .., /, spaces, control characters, a leading dot or more than 64 characters', () => {
      for (const name of ['a..b', 'a/b', 'a b', 'a\nb', '.hidden', '-x', '', 'a'.repeat(65), 'é']) {
        expect(errorsOf({ name, nodes: [{ id: 'a', prompt: 'x' }] })[0], name).to.match(/^name: /);
      }
    });
  });

  describe('a node on its own', () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      [
        'no kind',
        {},
        [
          'nodes[1] "b": no kind: a node needs one of prompt, command, bash, approval, script, cancel, loop or workflow',
        ],
      ],
      [
        'several kinds',
        { prompt: 'x', bash: 'y' },
        ['nodes[1] "b": several kinds on one node (prompt, bash): a node has exactly one'],
      ],
      [
        'unknown keys',
        { prompt: 'x', dependson: ['a'] },
        ['nodes[1] "b": unknown key "dependson" (did you mean "depends_on"?)'],
      ],
      [
        'a camelCase key',
        { prompt: 'x', dependsOn: ['a'] },
        ['nodes[1] "b": unknown key "dependsOn" (did you mean "depends_on"?)'],
      ],
      ['an empty prompt', { prompt: '  \n' }, ['nodes[1] "b": prompt: must not be empty']],
      ['a prompt that is not text', { prompt: 42 }, ['nodes[1] "b": prompt: must be a string, not a number']],
      [
        'a bash script that is not text',
        { bash: ['ls'] },
        ['nodes[1] "b": bash: must be a string, not a list'],
      ],
      [
        'a command that is not a name',
        { command: '../../etc/passwd' },
        [
          'nodes[1] "b": command: "../../etc/passwd" is not a command name (1 to 64 of a-z, A-Z, 0-9, "-", "_", ".")',
        ],
      ],
      [
        'an approval that is text',
        { approval: 'ok?' },
        ['nodes[1] "b": approval: must be a mapping with a message, not a string'],
      ],
      ['an approval without a message', { approval: {} }, ['nodes[1] "b": approval.message: required']],
      [
        'a bad approval',
        { approval: { message: 3, capture_response: 'yes', timeout: '1h' } },
        [
          'nodes[1] "b": approval: unknown key "timeout"',
          'nodes[1] "b": approval.message: must be a string, not a number',
          'nodes[1] "b": approval.capture_response: must be true or false, not a string',
        ],
      ],
      [
        'depends_on as text',
        { prompt: 'x', depends_on: 'a' },
        ['nodes[1] "b": depends_on: must be a list of node ids, such as [plan], not a string'],
      ],
      [
        'depends_on with a number and a repeat',
        { prompt: 'x', depends_on: ['a', 1, 'a'] },
        [
          'nodes[1] "b": depends_on[1]: must be a node id, not a number',
          'nodes[1] "b": depends_on: "a" is listed twice',
        ],
      ],
      ['when not text', { prompt: 'x', when: true }, ['nodes[1] "b": when: must be a string, not true']],
      [
        'when that does not parse',
        { prompt: 'x', depends_on: ['a'], when: "$a.output = 'x'" },
        ['nodes[1] "b": when: "=" alone is not an operator at character 11; write "=="'],
      ],
      [
        'an unknown trigger_rule',
        { prompt: 'x', trigger_rule: 'any' },
        ['nodes[1] "b": trigger_rule: must be one of all_success, one_success, all_done, not "any"'],
      ],
      [
        'an unknown provider',
        { prompt: 'x', provider: 'gemini' },
        ['nodes[1] "b": provider: must be one of claude, codex, not "gemini"'],
      ],
      [
        'a model that is not text',
        { prompt: 'x', model: 4 },
        ['nodes[1] "b": model: must be a string, not a number'],
      ],
      [
        'provider and model on a bash node',
        { bash: 'x', provider: 'claude', model: 'm' },
        [
          'nodes[1] "b": provider: only prompt, command and loop nodes have a provider',
          'nodes[1] "b": model: only prompt, command and loop nodes have a model',
        ],
      ],
      [
        'provider on an approval node',
        { approval: { message: 'm' }, provider: 'codex' },
        ['nodes[1] "b": provider: only prompt, command and loop nodes have a provider'],
      ],
      [
        'retry as a number',
        { prompt: 'x', retry: 3 },
        ['nodes[1] "b": retry: must be a mapping with attempts and delay, not a number'],
      ],
      [
        'retry without attempts',
        { prompt: 'x', retry: { delay: '1s' } },
        ['nodes[1] "b": retry.attempts: required'],
      ],
      [
        'too many attempts',
        { prompt: 'x', retry: { attempts: 6 } },
        ['nodes[1] "b": retry.attempts: must be between 1 and 5'],
      ],
      [
        'no attempts',
        { prompt: 'x', retry: { attempts: 0 } },
        ['nodes[1] "b": retry.attempts: must be between 1 and 5'],
      ],
      [
        'fractional attempts',
        { prompt: 'x', retry: { attempts: 1.5 } },
        ['nodes[1] "b": retry.attempts: must be a whole number, not a number'],
      ],
      [
        'attempts as text',
        { prompt: 'x', retry: { attempts: '2' } },
        ['nodes[1] "b": retry.attempts: must be a whole number, not a string'],
      ],
      [
        'a long delay',
        { prompt: 'x', retry: { attempts: 2, delay: '11m' } },
        ['nodes[1] "b": retry.delay: must be between 0s and 10m'],
      ],
      [
        'a delay that is not a duration',
        { prompt: 'x', retry: { attempts: 2, delay: 30, tries: 1 } },
        [
          'nodes[1] "b": retry: unknown key "tries"',
          'nodes[1] "b": retry.delay: must be a duration: a whole number and s, m or h, such as 90s, 10m or 2h',
        ],
      ],
      [
        'retry on an approval node',
        { approval: { message: 'm' }, retry: { attempts: 2 } },
        ['nodes[1] "b": retry: approval nodes are not retried'],
      ],
      [
        'a zero timeout',
        { prompt: 'x', timeout: '0s' },
        ['nodes[1] "b": timeout: must be between 1s and 24h'],
      ],
      [
        'a long timeout',
        { prompt: 'x', timeout: '25h' },
        ['nodes[1] "b": timeout: must be between 1s and 24h'],
      ],
      [
        'a timeout in milliseconds (Archon) under a second',
        { prompt: 'x', timeout: 60 },
        ['nodes[1] "b": timeout: must be between 1s and 24h'],
      ],
      [
        'a timeout that is neither a duration nor whole milliseconds',
        { prompt: 'x', timeout: 1.5 },
        [
          'nodes[1] "b": timeout: must be a duration: a whole number and s, m or h, such as 90s, 10m or 2h, or a whole number of milliseconds',
        ],
      ],
      [
        'output_format as text',
        { prompt: 'x', output_format: 'json' },
        ['nodes[1] "b": output_format: must be a JSON Schema mapping, not a string'],
      ],
      [
        'output_format as a list',
        { bash: 'x', output_format: [] },
        ['nodes[1] "b": output_format: must be a JSON Schema mapping, not a list'],
      ],
      [
        'output_format on an approval node',
        { approval: { message: 'm' }, output_format: {} },
        ['nodes[1] "b": output_format: only prompt, command, bash and script nodes have an output_format'],
      ],
    ];
    for (const [what, node, errors] of cases) {
      it(`reports ${what}`, () => {
        expect(second(node)).to.deep.equal(errors);
      });
    }

    it('reports a missing, mistyped or malformed id without naming the node by it', () => {
      expect(errorsOf({ name: 'w', nodes: [{ prompt: 'x' }] })).to.deep.equal(['nodes[0]: id: required']);
      expect(errorsOf({ name: 'w', nodes: [{ id: 7, prompt: 'x' }] })).to.deep.equal([
        'nodes[0]: id: must be a string, not a number',
      ]);
      for (const id of ['1a', '-a', 'a.b', 'a b', '', 'a'.repeat(65), 'ä']) {
        expect(errorsOf({ name: 'w', nodes: [{ id, prompt: 'x' }] }), id).to.deep.equal([
          `nodes[0]: id: ${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)} must be 1 to 64 characters from a-z, A-Z, 0-9, "_", "-", starting with a letter`,
        ]);
      }
    });

    it('reports a node that is not a mapping', () => {
      expect(errorsOf({ name: 'w', nodes: ['prompt: x', null] })).to.deep.equal([
        'nodes[0]: must be a mapping with an id and one of prompt, command, bash, approval, script, cancel, loop or workflow, not a string',
        'nodes[1]: must be a mapping with an id and one of prompt, command, bash, approval, script, cancel, loop or workflow, not null',
      ]);
    });

    it('passes output_format to the checkSchema hook and reports its answer', () => {
      const seen: object[] = [];
      const schema = { type: 'objekt' };
      const errors = errorsOf(one({ prompt: 'x', output_format: schema }), {
        checkSchema: (s) => {
          seen.push(s);
          return 'data/type must be equal to one of the allowed values';
        },
      });
      expect(seen).to.deep.equal([schema]);
      expect(errors).to.deep.equal([
        'nodes[0] "a": output_format: data/type must be equal to one of the allowed values',
      ]);
      expect(
        validateWorkflowDefinition(one({ prompt: 'x', output_format: {} }), { checkSchema: () => undefined })
          .valid,
      ).to.equal(true);
      expect(
        errorsOf(one({ prompt: 'x', output_format: {} }), {
          checkSchema: () => {
            throw new Error('boom');
          },
        }),
      ).to.deep.equal(['nodes[0] "a": output_format: could not be checked (boom)']);
    });
  });

  describe('approval rework (on_reject)', () => {
    it('normalizes the rework prompt and its attempts (3 by default)', () => {
      const result = validateWorkflowDefinition({
        name: 'w',
        nodes: [
          { id: 'a', prompt: 'draft' },
          {
            id: 'b',
            depends_on: ['a'],
            approval: { message: 'ok?', on_reject: { prompt: 'Fix: $REJECTION_REASON $a.output' } },
          },
        ],
      });
      expect(result.valid).to.equal(true);
      const gate = result.valid ? result.definition.nodes[1]! : undefined;
      expect(gate?.kind === 'approval' && gate.approval.onReject).to.deep.equal({
        prompt: 'Fix: $REJECTION_REASON $a.output',
        maxAttempts: 3,
      });
    });

    it('refuses a missing prompt, unknown keys, attempts out of range and references that are not upstream', () => {
      expect(second({ approval: { message: 'ok?', on_reject: {} } })).to.deep.equal([
        'nodes[1] "b": approval.on_reject.prompt: required',
      ]);
      expect(
        second({ approval: { message: 'ok?', on_reject: { prompt: 'x', max_attempts: 9 } } }),
      ).to.deep.equal(['nodes[1] "b": approval.on_reject.max_attempts: must be a whole number from 1 to 5']);
      expect(second({ approval: { message: 'ok?', on_reject: { prompt: 'x', tries: 2 } } })[0]).to.match(
        /unknown key "tries"/,
      );
      expect(second({ approval: { message: 'ok?', on_reject: { prompt: 'use $a.output' } } })[0]).to.match(
        /approval\.on_reject\.prompt/,
      );
    });
  });

  describe('the graph', () => {
    it('reports duplicate ids', () => {
      expect(
        errorsOf({
          name: 'w',
          nodes: [
            { id: 'a', prompt: 'x' },
            { id: 'b', prompt: 'y' },
            { id: 'a', bash: 'z' },
          ],
        }),
      ).to.deep.equal(['nodes[2] "a": id: "a" is already the id of nodes[0]']);
    });

    it('reports unknown dependencies and self-dependencies', () => {
      expect(
        errorsOf({
          name: 'w',
          nodes: [
            { id: 'investigate', prompt: 'x' },
            { id: 'x', depends_on: ['x'], prompt: 'y' },
            { id: 'plan', depends_on: ['investigat'], prompt: 'z' },
          ],
        }),
      ).to.deep.equal([
        'nodes[1] "x": depends_on: a node cannot depend on itself',
        'nodes[2] "plan": depends_on: unknown node "investigat"',
      ]);
    });

    it('reports each cycle once, as a path', () => {
      expect(
        errorsOf({
          name: 'w',
          nodes: [
            { id: 'a', depends_on: ['b'], prompt: 'x' },
            { id: 'b', depends_on: ['a'], prompt: 'x' },
            { id: 'c', depends_on: ['e'], prompt: 'x' },
            { id: 'd', depends_on: ['c'], prompt: 'x' },
            { id: 'e', depends_on: ['d', 'a'], prompt: 'x' },
            { id: 'f', depends_on: ['e'], prompt: 'x' },
          ],
        }),
      ).to.deep.equal([
        'nodes[0] "a": depends_on: cycle a -> b -> a',
        'nodes[2] "c": depends_on: cycle c -> e -> d -> c',
      ]);
    });

    it('finds the shortest cycle through a node in a tangle', () => {
      const errors = errorsOf({
        name: 'w',
        nodes: [
          { id: 'a', depends_on: ['b', 'c'], prompt: 'x' },
          { id: 'b', depends_on: ['c'], prompt: 'x' },
          { id: 'c', depends_on: ['a'], prompt: 'x' },
        ],
      });
      expect(errors).to.deep.equal(['nodes[0] "a": depends_on: cycle a -> c -> a']);
    });
  });

  describe('references', () => {
    const base = [
      { id: 'classify', prompt: 'x', output_format: { type: 'object' } },
      { id: 'plan', prompt: 'x' },
      { id: 'other', prompt: 'x' },
    ];
    const withNode = (node: Record<string, unknown>) =>
      errorsOf({ name: 'w', nodes: [...base, { id: 'n', depends_on: ['plan', 'classify'], ...node }] });

    it('accepts references to upstream nodes, including indirect ones', () => {
      definition({
        name: 'w',
        nodes: [
          ...base,
          { id: 'mid', depends_on: ['classify'], prompt: 'x' },
          {
            id: 'n',
            depends_on: ['mid'],
            when: "$classify.output.kind == 'bug' && $mid.output",
            prompt: '$classify.output.kind $classify.output $mid.output $HOME $other.outputs',
          },
        ],
      });
    });

    it('reports prompt references to unknown, non-upstream and own outputs', () => {
      expect(withNode({ prompt: 'See $plann.output, $other.output and $n.output.' })).to.deep.equal([
        'nodes[3] "n": prompt: $plann.output refers to unknown node "plann"',
        'nodes[3] "n": prompt: $other.output: "other" is not upstream of this node (add it to depends_on)',
        'nodes[3] "n": prompt: $n.output: a node cannot read its own output',
      ]);
    });

    it('reports fields of a node without output_format', () => {
      expect(withNode({ prompt: '$plan.output.summary' })).to.deep.equal([
        'nodes[3] "n": prompt: $plan.output.summary: "plan" has no output_format, so its output has no fields',
      ]);
    });

    it('checks approval messages', () => {
      expect(withNode({ approval: { message: 'OK? $other.output' } })).to.deep.equal([
        'nodes[3] "n": approval.message: $other.output: "other" is not upstream of this node (add it to depends_on)',
      ]);
    });

    it('checks when conditions', () => {
      expect(
        withNode({ prompt: 'x', when: '$other.output || $plan.output.x == 1 || $nope.output.y' }),
      ).to.deep.equal([
        'nodes[3] "n": when: $other.output: "other" is not upstream of this node (add it to depends_on)',
        'nodes[3] "n": when: $plan.output.x: "plan" has no output_format, so its output has no fields',
        'nodes[3] "n": when: $nope.output.y refers to unknown node "nope"',
      ]);
    });

    it('does not treat a later node as upstream', () => {
      expect(
        errorsOf({
          name: 'w',
          nodes: [
            { id: 'a', prompt: '$b.output' },
            { id: 'b', depends_on: ['a'], prompt: 'x' },
          ],
        }),
      ).to.deep.equal([
        'nodes[0] "a": prompt: $b.output: "b" is not upstream of this node (add it to depends_on)',
      ]);
    });

    it('tells bash scripts which environment variable to read', () => {
      expect(withNode({ bash: 'echo "$plan.output" | grep $classify.output.kind' })).to.deep.equal([
        'nodes[3] "n": bash: $plan.output is not replaced in scripts; read the environment variable $PLAN_OUTPUT instead',
        'nodes[3] "n": bash: $classify.output.kind is not replaced in scripts; read the environment variable $CLASSIFY_OUTPUT instead (JSON text: read fields with jq)',
      ]);
    });

    it('accepts bash scripts reading upstream outputs from the environment', () => {
      definition({
        name: 'w',
        nodes: [
          ...base,
          {
            id: 'n',
            depends_on: ['plan', 'classify'],
            bash: 'echo "$PLAN_OUTPUT" "${CLASSIFY_OUTPUT}" "$HOME_OUTPUT" "$ARGUMENTS"',
          },
        ],
      });
    });

    it('reports bash scripts reading the output variable of a node that is not upstream', () => {
      expect(withNode({ bash: 'echo "$OTHER_OUTPUT"' })).to.deep.equal([
        'nodes[3] "n": bash: $OTHER_OUTPUT is the output of "other", which is not upstream of this node (add it to depends_on)',
      ]);
    });

    it('reports upstream ids that share an output variable', () => {
      expect(
        errorsOf({
          name: 'w',
          nodes: [
            { id: 'a-b', prompt: 'x' },
            { id: 'a_b', prompt: 'x' },
            { id: 'n', depends_on: ['a-b', 'a_b'], bash: 'echo "$A_B_OUTPUT"' },
          ],
        }),
      ).to.deep.equal([
        'nodes[2] "n": bash: $A_B_OUTPUT is ambiguous: upstream nodes "a-b" and "a_b" share it (rename one)',
      ]);
    });
  });

  describe('error lists', () => {
    it('collects errors from every level in a stable order', () => {
      const input = {
        name: 'bad name',
        extra: 1,
        nodes: [
          { id: 'a', prompt: '', retry: { attempts: 9 } },
          { id: 'b', depends_on: ['zz'], bash: 'x', provider: 'claude' },
          { id: 'b', approval: { message: 'm' }, when: '(' },
        ],
      };
      const errors = errorsOf(input);
      expect(errors).to.deep.equal([
        'unknown key "extra"',
        'name: "bad name" must be 1 to 64 characters from a-z, A-Z, 0-9, "-", "_", ".", starting with a letter or digit, without ".."',
        'nodes[0] "a": prompt: must not be empty',
        'nodes[0] "a": retry.attempts: must be between 1 and 5',
        'nodes[1] "b": provider: only prompt, command and loop nodes have a provider',
        'nodes[2] "b": when: expected a value, found the end of the condition at character 2',
        'nodes[2] "b": id: "b" is already the id of nodes[1]',
        'nodes[1] "b": depends_on: unknown node "zz"',
      ]);
      expect(errorsOf(input)).to.deep.equal(errors);
    });

    it('stops at 100 messages and says how many more there were', () => {
      const nodes = Array.from({ length: 100 }, (_, i) => ({
        id: `n${i}`,
        prompt: 'x',
        retry: { attempts: 0 },
        timeout: '0s',
      }));
      const errors = errorsOf({ name: 'w', nodes });
      expect(errors).to.have.length(100);
      expect(errors[98]).to.equal('nodes[49] "n49": retry.attempts: must be between 1 and 5');
      expect(errors[99]).to.equal('... and 101 more errors');
    });

    it('does not repeat a message', () => {
      expect(second({ prompt: '$other.output $other.output', depends_on: ['a'] })).to.deep.equal([
        'nodes[1] "b": prompt: $other.output refers to unknown node "other"',
      ]);
    });
  });
});
