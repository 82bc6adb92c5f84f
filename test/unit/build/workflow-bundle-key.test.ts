import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../../../config/package-root.js';
import { workflowBundleKey } from '../../../worker/workflow-bundle.js';
import { workflowSources } from '../../../worker/workflow-sources.js';
import { makeTempDir } from '../../support/temp-dirs.js';

// A small project in the layout of the real one: what the workflows reach at run time, what
// they import only as types, and what they do not reach at all.
const PROJECT: Record<string, string> = {
  'workflows/index.ts': [
    "export { greet } from './greet.js';",
    "import type { Activities } from '../activities/activities.js';",
    "export type { Shape } from '../domain/shape.js';",
  ].join('\n'),
  'workflows/greet.ts': [
    "import { proxyActivities } from '@temporalio/workflow';",
    'import {',
    '  QUEUE,',
    '  type Queue,',
    "} from '../domain/queues.js';",
    "import '../domain/setup';",
    'export const greet = (): Queue => QUEUE;',
  ].join('\n'),
  'domain/queues.ts': "export { DEFAULT } from './defaults/index.js';\nexport const QUEUE = 'q';",
  'domain/defaults/index.ts': 'export const DEFAULT = 1;',
  'domain/setup.ts': 'export {};',
  'domain/shape.ts': 'export interface Shape { x: number }',
  'domain/unrelated.ts': 'export const unrelated = 1;',
  'activities/activities.ts':
    "import { QUEUE } from '../domain/queues.js';\nexport interface Activities { q: typeof QUEUE }",
};

describe('workflow bundle key', () => {
  let project: { path: string; cleanup(): void };
  const entry = () => join(project.path, 'workflows/index.ts');
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(project.path, file)), { recursive: true });
    writeFileSync(join(project.path, file), text);
  };
  const key = () => workflowBundleKey(entry(), project.path);

  beforeEach(() => {
    project = makeTempDir('cairn-bundle-key-');
    for (const [file, text] of Object.entries(PROJECT)) write(file, text);
  });
  afterEach(() => project.cleanup());

  it('follows runtime imports (multi-line, side-effect, re-exports, folders) and skips type-only ones', () => {
    const sources = workflowSources(entry());
    expect(sources.files.map((file) => relative(project.path, file))).to.deep.equal([
      'workflows/index.ts',
      'domain/defaults/index.ts',
      'domain/queues.ts',
      'domain/setup.ts',
      'workflows/greet.ts',
    ]);
    expect(sources.packages).to.deep.equal(['@temporalio/workflow']);
  });

  it('changes when a reached file changes, however deep', () => {
    const before = key();
    write('domain/defaults/index.ts', 'export const DEFAULT = 2;');
    expect(key()).to.not.equal(before);
  });

  it('stays the same when a file that is not reached, or reached only by a type import, changes', () => {
    const before = key();
    write('domain/unrelated.ts', 'export const unrelated = 2;');
    write('domain/shape.ts', 'export interface Shape { y: string }');
    write('activities/activities.ts', 'export interface Activities { other: true }');
    expect(key()).to.equal(before);
  });

  it('changes when a new import reaches a file that was unrelated before', () => {
    const before = key();
    write(
      'workflows/greet.ts',
      `${PROJECT['workflows/greet.ts']}\nexport { unrelated } from '../domain/unrelated.js';`,
    );
    const withImport = key();
    expect(withImport).to.not.equal(before);
    write('domain/unrelated.ts', 'export const unrelated = 3;');
    expect(key()).to.not.equal(withImport);
  });

  it('reaches only workflows/ and domain/ in the real project, the runs workflow included', () => {
    const files = workflowSources(join(PACKAGE_ROOT, 'workflows/index.ts')).files.map((file) =>
      relative(PACKAGE_ROOT, file),
    );
    expect(files).to.include.members(['workflows/runs/workflow-run.ts', 'domain/task-queues.ts']);
    expect(files.filter((file) => !/^(workflows|domain)\//.test(file))).to.deep.equal([]);
  });
});
