import { expect } from 'chai';
import { declaredInputs, inputValues } from '../../../web/src/chat/workflow-inputs.js';

describe("the run form's inputs (web/src/chat/workflow-inputs.ts)", () => {
  it('reads the inputs as written, in order, defaults as text', () => {
    expect(
      declaredInputs({
        name: 'fix',
        inputs: {
          issue: { required: true, description: 'The issue to fix' },
          branch: { default: 'main' },
          attempts: { default: 3 },
          note: null,
        },
      }),
    ).to.deep.equal([
      { name: 'issue', required: true, description: 'The issue to fix' },
      { name: 'branch', required: false, default: 'main' },
      { name: 'attempts', required: false, default: '3' },
      { name: 'note', required: false },
    ]);
    expect(declaredInputs({ name: 'plain' })).to.deep.equal([]);
    expect(declaredInputs({ inputs: ['not', 'a', 'mapping'] })).to.deep.equal([]);
  });

  it('sends only the inputs given, so an empty optional one takes its default', () => {
    const inputs = declaredInputs({ inputs: { issue: { required: true }, branch: { default: 'main' } } });
    expect(inputValues(inputs, { issue: ' #12 ', branch: '  ', stray: 'x' })).to.deep.equal({ issue: '#12' });
  });
});
