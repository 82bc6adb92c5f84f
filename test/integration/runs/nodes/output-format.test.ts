import { expect } from 'chai';
import {
  checkAssistantOutput,
  checkScriptOutput,
  outputSchemaViolation,
} from '../../../../activities/runs/output-format.js';

describe('runs/output-format (node output checks)', function () {
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

  it('finds the JSON of an answer: the whole text, a fenced block, or a bracketed span', () => {
    expect(checkAssistantOutput(schema, ' {"ok": true}\n')).to.deep.equal({ ok: true, value: { ok: true } });
    expect(checkAssistantOutput(schema, 'Result:\n```\n{"ok": false}\n```\nbye')).to.deep.equal({
      ok: true,
      value: { ok: false },
    });
    const spans = 'First {"note": "has } inside"} then the answer {"ok": true, "why": "[x]"} end';
    expect(checkAssistantOutput(schema, spans)).to.deep.equal({
      ok: true,
      value: { ok: true, why: '[x]' },
    });
    expect(checkAssistantOutput({ type: 'array', minItems: 2 }, 'list: [1, 2]')).to.deep.equal({
      ok: true,
      value: [1, 2],
    });
  });

  it('prefers the last ```json block, and names the first violation when nothing fits', () => {
    const text = '```json\n{"ok": "early"}\n```\nthen\n```json\n{"ok": true}\n```';
    expect(checkAssistantOutput(schema, text)).to.deep.equal({ ok: true, value: { ok: true } });
    expect(checkAssistantOutput(schema, 'only {"ok": "text"}')).to.deep.equal({
      ok: false,
      error: 'output does not match output_format: /ok must be boolean',
    });
  });

  it('takes script output as JSON only as a whole, and checks formats', () => {
    expect(checkScriptOutput(schema, 'note {"ok": true}').ok).to.equal(false);
    expect(checkScriptOutput({ type: 'string', format: 'email' }, '"not-an-email"')).to.deep.equal({
      ok: false,
      error: 'output does not match output_format: (root) must match format "email"',
    });
    expect(checkScriptOutput({ type: 'string', format: 'email' }, '"a@b.example"\n')).to.deep.equal({
      ok: true,
      value: 'a@b.example',
    });
  });

  it('reports a schema that does not compile, and compiles the same $id schema repeatedly', () => {
    expect(outputSchemaViolation({ type: 'no-such-type' }, 1)).to.match(
      /^output_format is not a valid JSON Schema/,
    );
    const withId = { $id: 'https://example.com/node-output', type: 'integer' };
    expect(outputSchemaViolation(withId, 1)).to.equal(undefined);
    expect(outputSchemaViolation({ ...withId }, 'x')).to.equal(
      'output does not match output_format: (root) must be integer',
    );
  });
});
