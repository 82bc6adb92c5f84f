import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { goBuiltTool } from '../../support/go-tools.js';
import { makeTempDir } from '../../support/temp-dirs.js';

// Two real linters, no Docker engine: BuildKit's checks (the rules of `docker build --check`,
// built from test/tools/dockerfile-lint with Go) and dockerfile-utils (the validator of the VS Code
// Docker language server). Each is first shown a Dockerfile with known faults, so a linter that
// checks nothing cannot pass.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOCKERFILE = join(ROOT, 'Dockerfile');
const TOOL = join(ROOT, 'test/tools/dockerfile-lint');

const FAULTY = `from node:20 as build
WORKDIR app
ENV API_TOKEN=abc
ENV MODE production
FROM build
CMD npm start
CMD ["npm", "start"]
HEALTHCHECK --interval=abc CMD true
`;

interface Finding {
  rule: string;
  detail: string;
  line: number;
}

function runLinter(linter: string, dockerfile: string) {
  return spawnSync(linter, [dockerfile], { encoding: 'utf8' });
}

function buildkitFindings(linter: string, dockerfile: string): Finding[] {
  const run = runLinter(linter, dockerfile);
  if (run.status !== 0) throw new Error(`dockerfile-lint failed (${run.status}): ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Finding);
}

// Every check dockerfile-utils can be told about, as an error.
const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

describe('the Dockerfile passes real linters', function () {
  const faulty = makeTempDir('cairn-dockerfile-');
  const faultyFile = join(faulty.path, 'Dockerfile');
  // Without its last line, which BuildKit refuses outright rather than warns about.
  const warnedFile = join(faulty.path, 'Dockerfile.warnings');
  let linter: string;
  before(function () {
    // A first build downloads BuildKit's modules and compiles them: a minute or two.
    this.timeout(10 * 60_000);
    writeFileSync(faultyFile, FAULTY);
    writeFileSync(warnedFile, FAULTY.split('\n').slice(0, 7).join('\n'));
    linter = goBuiltTool(TOOL, ['go.mod', 'go.sum', 'main.go']);
  });
  after(() => faulty.cleanup());

  it("BuildKit's checks find the faults of a faulty Dockerfile", () => {
    const refused = runLinter(linter, faultyFile);
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.include('dockerfile parse error on line 8');
    const rules = buildkitFindings(linter, warnedFile).map((finding) => `${finding.rule}@${finding.line}`);
    expect(rules).to.include.members([
      'ConsistentInstructionCasing@1',
      'WorkdirRelativePath@2',
      'SecretsUsedInArgOrEnv@3',
      'LegacyKeyValueFormat@4',
      'JSONArgsRecommended@6',
    ]);
  });

  it("BuildKit's checks, experimental ones included, find nothing in Cairn's Dockerfile", () => {
    expect(buildkitFindings(linter, DOCKERFILE)).to.deep.equal([]);
  });

  it('dockerfile-utils finds the faults of a faulty Dockerfile', () => {
    const lines = validate(FAULTY, STRICT).map((d) => `${d.range.start.line + 1}: ${d.message}`);
    expect(lines).to.include.members([
      '1: Instructions should be written in uppercase letters',
      '2: WORKDIR paths should be absolute',
      '6: There can only be one CMD instruction in a Dockerfile or build stage. Only the last one will have an effect.',
      '8: time: invalid duration abc',
    ]);
  });

  it("dockerfile-utils, every check an error, finds nothing in Cairn's Dockerfile", () => {
    const diagnostics = validate(readFileSync(DOCKERFILE, 'utf8'), STRICT);
    expect(diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message}`)).to.deep.equal([]);
  });
});
