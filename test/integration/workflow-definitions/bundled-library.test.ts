import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import {
  BUNDLED_COMMANDS_DIR,
  BUNDLED_SCRIPTS_DIR,
  BUNDLED_WORKFLOWS_DIR,
} from '../../../services/workflow-definitions/bundled-library.js';
import { checkDefinition } from '../../../services/workflow-definitions/definition-files.js';
import { makeTempRepo } from '../../support/git-repos.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const workflowFiles = readdirSync(BUNDLED_WORKFLOWS_DIR).filter((file) => file.endsWith('.yaml'));
const commandNames = new Set(readdirSync(BUNDLED_COMMANDS_DIR).map((file) => file.replace(/\.md$/, '')));

describe('the bundled workflow library', () => {
  for (const file of workflowFiles) {
    it(`${file} is valid, names its file, and uses only bundled commands and scripts`, () => {
      const definition = YAML.parse(readFileSync(join(BUNDLED_WORKFLOWS_DIR, file), 'utf8')) as {
        name: string;
        nodes: Array<{ id: string; command?: string; bash?: string }>;
      };
      const checked = checkDefinition(definition);
      expect(checked.valid, JSON.stringify(!checked.valid && checked.errors)).to.equal(true);
      expect(`${definition.name}.yaml`).to.equal(file);
      for (const node of definition.nodes) {
        if (node.command) expect(commandNames, `${file} ${node.id}`).to.include(node.command);
        for (const [, script] of (node.bash ?? '').matchAll(/\$CAIRN_SCRIPTS_DIR\/([\w.-]+)/g)) {
          expect(existsSync(join(BUNDLED_SCRIPTS_DIR, script!)), `${file} ${node.id}: ${script}`).to.equal(
            true,
          );
        }
        if (node.bash) {
          const syntax = spawnSync('bash', ['-n'], { input: node.bash });
          expect(syntax.status, `${file} ${node.id}: ${syntax.stderr}`).to.equal(0);
        }
      }
    });
  }

  it('run-checks.sh finds a project test script, runs it, and reports passed and failed as JSON', function () {
    this.timeout(30_000);
    const repo = makeTempRepo({
      files: {
        'package.json': JSON.stringify({ name: 'demo', scripts: { test: 'node check.js' } }),
        'package-lock.json': JSON.stringify({ name: 'demo', lockfileVersion: 3, packages: {} }),
        'check.js': 'process.exit(0);\n',
      },
    });
    const artifacts = makeTempDir('cairn-artifacts-');
    try {
      execFileSync('mkdir', ['-p', join(repo.path, 'node_modules')]);
      const run = () =>
        JSON.parse(
          execFileSync('bash', [join(BUNDLED_SCRIPTS_DIR, 'run-checks.sh')], {
            cwd: repo.path,
            env: { ...process.env, ARTIFACTS_DIR: artifacts.path },
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        ) as { status: string; checks: Array<{ name: string; exit_code: number }> };
      const passed = run();
      expect(passed.status).to.equal('passed');
      expect(passed.checks.map((check) => check.exit_code)).to.deep.equal([0]);
      writeFileSync(join(repo.path, 'check.js'), 'process.exit(3);\n');
      const failed = run();
      expect(failed.status).to.equal('failed');
      expect(failed.checks[0]!.exit_code).to.equal(3);
      expect(existsSync(join(artifacts.path, 'validation.json'))).to.equal(true);
    } finally {
      repo.cleanup();
      artifacts.cleanup();
    }
  });
});
