import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { RUN_STATES_PAGE, withRunStatesReference } from '../../../scripts/run-states-doc.js';
import { RUN_OPERATION_NAMES } from '../../../domain/runs/run-state-machine.js';

describe('docs/run-states.md', () => {
  it('shows the table the code reads (run `npm run docs` after changing it)', () => {
    const page = readFileSync(RUN_STATES_PAGE, 'utf8');
    expect(withRunStatesReference(page)).to.equal(page);
    for (const operation of RUN_OPERATION_NAMES) expect(page).to.include(`| \`${operation}\` |`);
  });
});
