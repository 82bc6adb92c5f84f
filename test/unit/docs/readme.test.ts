import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { REFERENCE_PAGE, withEnvironmentReference } from '../../../scripts/env-reference.js';
import { describeEnvironmentVariables } from '../../../config/environment.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const configuration = readFileSync(REFERENCE_PAGE, 'utf8');

describe('docs/configuration.md', () => {
  it('has the environment reference the code generates (run `npm run docs` after changing a variable)', () => {
    expect(withEnvironmentReference(configuration)).to.equal(configuration);
    for (const variable of describeEnvironmentVariables())
      expect(configuration).to.include(`\`${variable.name}\``);
  });
});

describe('README', () => {
  it('gives a quick start of exactly two commands', () => {
    const quickStart = readme.split('## Quick start')[1]!.split('\n## ')[0]!;
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)![1]!;
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(commands).to.deep.equal(['npm start', 'npm test']);
  });
});
