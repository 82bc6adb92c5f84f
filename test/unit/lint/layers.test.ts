import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../../support/temp-dirs.js';

type TempDir = ReturnType<typeof makeTempDir>;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** Runs the project's layer rules over a small tree of files written for the test. */
function cruise(dir: TempDir, files: Record<string, string>): { status: number | null; output: string } {
  writeFileSync(
    join(dir.path, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir.path, file)), { recursive: true });
    writeFileSync(join(dir.path, file), text);
  }
  const folders = [...new Set(Object.keys(files).map((file) => file.split('/')[0]!))];
  const result = spawnSync(DEPCRUISE, ['--config', CONFIG, ...folders], { cwd: dir.path, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('lint: the layer rules (.dependency-cruiser.cjs)', function () {
  this.timeout(60_000);
  let dir: TempDir;
  beforeEach(() => (dir = makeTempDir('cairn-layers-')));
  afterEach(() => dir.cleanup());

  it('passes imports that point down the layers', () => {
    const result = cruise(dir, {
      'domain/rule.ts': 'export const rule = 1;\n',
      'db/store.ts': "import { rule } from '../domain/rule.js';\nexport const store = rule;\n",
      'services/use-case.ts': "import { store } from '../db/store.js';\nexport const useCase = store;\n",
      'api/route.ts':
        "import type { store } from '../db/store.js';\nimport { useCase } from '../services/use-case.js';\nexport const route: typeof store = useCase;\n",
    });
    expect(result.output).to.include('no dependency violations');
    expect(result.status).to.equal(0);
  });

  it('fails a wrong-way import: domain reaching into db', () => {
    const result = cruise(dir, {
      'db/store.ts': 'export const store = 1;\n',
      'domain/rule.ts': "import { store } from '../db/store.js';\nexport const rule = store;\n",
    });
    expect(result.status).to.not.equal(0);
    expect(result.output).to.match(/domain-imports: domain\/rule\.ts → db\/store\.ts/);
  });

  it('fails a handler that reads the database instead of calling a service', () => {
    const result = cruise(dir, {
      'db/store.ts': 'export const store = 1;\n',
      'api/route.ts': "import { store } from '../db/store.js';\nexport const route = store;\n",
    });
    expect(result.status).to.not.equal(0);
    expect(result.output).to.include('api-imports-only-types-of-db');
  });

  it('fails workflow code that loads an activity, and passes one that names its types', () => {
    const typesOnly = cruise(dir, {
      'activities/act.ts': 'export function act(): number {\n  return 1;\n}\n',
      'workflows/flow.ts':
        "import type { act } from '../activities/act.js';\nexport type Act = typeof act;\n",
    });
    expect(typesOnly.status).to.equal(0);
    const loads = cruise(dir, {
      'workflows/flow.ts': "import { act } from '../activities/act.js';\nexport const flow = act;\n",
    });
    expect(loads.status).to.not.equal(0);
    expect(loads.output).to.include('workflows-imports-only-types-of-activities');
  });

  it('fails an import cycle, even one made only of type imports', () => {
    const result = cruise(dir, {
      'services/a.ts': "import type { B } from './b.js';\nexport interface A {\n  b?: B;\n}\n",
      'services/b.ts': "import type { A } from './a.js';\nexport interface B {\n  a?: A;\n}\n",
    });
    expect(result.status).to.not.equal(0);
    expect(result.output).to.include('no-circular');
  });
});
