import { expect } from 'chai';
import { splitPatch } from '../../../web/src/runs/diff-model.js';

describe('the run page diff model (web/src/runs/diff-model.ts)', () => {
  it('cuts a patch into files and gives each line its kind', () => {
    const patch = [
      'diff --git a/README.md b/README.md',
      'index 1111111..2222222 100644',
      '--- a/README.md',
      '+++ b/README.md',
      '@@ -1,2 +1,2 @@',
      ' # app',
      '-old line',
      '+new line',
      '\\ No newline at end of file',
      'diff --git a/old.txt b/new.txt',
      'similarity index 100%',
      'rename from old.txt',
      'rename to new.txt',
      '',
    ].join('\n');
    const files = splitPatch(patch);
    expect(files.map((file) => file.header)).to.deep.equal([
      'diff --git a/README.md b/README.md',
      'diff --git a/old.txt b/new.txt',
    ]);
    expect(files[0]!.lines.map((line) => line.kind)).to.deep.equal([
      'meta',
      'meta', // "--- a/README.md" is a header line, not a removed one
      'meta',
      'hunk',
      'context',
      'removed',
      'added',
      'meta',
    ]);
    expect(files[0]!.lines[6]).to.deep.equal({ kind: 'added', text: '+new line' });
    expect(files[1]!.lines.every((line) => line.kind === 'meta')).to.equal(true);
    expect(files[1]!.lines).to.have.length(3);
  });

  it('reads an empty patch as no file, and a cut patch up to where it stops', () => {
    expect(splitPatch('')).to.deep.equal([]);
    const cut = splitPatch('diff --git a/big b/big\n--- /dev/null\n+++ b/big\n@@ -0,0 +1,9 @@\n+1\n+2\n');
    expect(cut).to.have.length(1);
    expect(cut[0]!.lines.filter((line) => line.kind === 'added')).to.have.length(2);
  });
});
