import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { databaseKinds } from '../../support/databases.js';
import { startWorkflowRunHarness, type WorkflowRunHarness } from '../../support/workflow-runs.js';

// A run's artifacts ($ARTIFACTS_DIR): listed and downloaded through the API, with a real run whose
// bash node writes them, and every way out of the folder refused.

/** A report, a nested binary file, and what must never be listed or sent: links out and in, a FIFO. */
const WRITE = `name: write
nodes:
  - id: write
    bash: |
      printf '# Report\\n\\nAll good: café\\n' > "$ARTIFACTS_DIR/report.md"
      mkdir -p "$ARTIFACTS_DIR/nested/deep"
      printf 'bin\\000ary\\377' > "$ARTIFACTS_DIR/nested/deep/data.bin"
      ln -s /etc/passwd "$ARTIFACTS_DIR/passwd-link"
      ln -s .. "$ARTIFACTS_DIR/up-link"
      ln -s report.md "$ARTIFACTS_DIR/inner-link"
      mkfifo "$ARTIFACTS_DIR/fifo"
      echo written
`;

const NOTHING = `name: nothing
nodes:
  - id: idle
    bash: echo idle
`;

interface ArtifactList {
  runId: string;
  artifacts: Array<{ path: string; name: string; size: number; modifiedAt: string }>;
  truncated: boolean;
}

for (const kind of databaseKinds()) {
  describe(`a run's artifacts (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;
    let runId: string;

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/write.yaml': WRITE,
        '.cairn/workflows/nothing.yaml': NOTHING,
      });
      const { run } = await harness.runToEnd('write', 'write artifacts');
      expect(run.status, run.error ?? '').to.equal('completed');
      runId = run.runId;
    });

    after(async () => harness?.close());

    /**
     * The raw answer, the path sent exactly as written (node:http, not fetch: a URL parser would
     * resolve `%2E%2E` itself before the server saw it).
     */
    const download = (path: string, run = runId) =>
      new Promise<Response>((resolve, reject) => {
        const url = new URL(harness.app.url);
        const request = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: `/api/workflows/runs/${run}/artifacts/${path}`,
            headers: { 'X-Forwarded-User': 'reviewer' },
          },
          (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.on('end', () => {
              const headers = new Headers();
              for (const [name, value] of Object.entries(answer.headers))
                if (typeof value === 'string') headers.set(name, value);
              resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode, headers }));
            });
            answer.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end();
      });

    it('lists the regular files, nested ones included, with their size and time; no link or FIFO', async () => {
      const { status, body } = await harness.call<ArtifactList>(
        'GET',
        `/api/workflows/runs/${runId}/artifacts`,
      );
      expect(status).to.equal(200);
      expect(body.truncated).to.equal(false);
      expect(body.artifacts.map((artifact) => [artifact.path, artifact.name, artifact.size])).to.deep.equal([
        ['nested/deep/data.bin', 'data.bin', 8],
        ['report.md', 'report.md', Buffer.byteLength('# Report\n\nAll good: café\n')],
      ]);
      for (const artifact of body.artifacts)
        expect(Date.parse(artifact.modifiedAt)).to.be.closeTo(Date.now(), 10 * 60_000);
    });

    it('sends a text file as text/plain and a binary one as bytes, both as attachments, never sniffed', async () => {
      const report = await download('report.md');
      expect(report.status).to.equal(200);
      expect(report.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(report.headers.get('content-disposition')).to.equal(
        `attachment; filename="report.md"; filename*=UTF-8''report.md`,
      );
      expect(report.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(await report.text()).to.equal('# Report\n\nAll good: café\n');

      const data = await download(encodeURIComponent('nested/deep/data.bin'));
      expect(data.status).to.equal(200);
      expect(data.headers.get('content-type')).to.equal('application/octet-stream');
      expect(data.headers.get('content-disposition')).to.match(/^attachment; filename="data\.bin"/);
      expect(Buffer.from(await data.arrayBuffer())).to.deep.equal(Buffer.from('bin\0ary\xff', 'latin1'));

      // A link that stays inside the folder is followed.
      const inner = await download('inner-link');
      expect(inner.status).to.equal(200);
      expect(await inner.text()).to.include('All good');
    });

    it('refuses every way out of the folder with a 400 naming the path, and answers 404 for what is not there', async () => {
      const refused = [
        '..%2F..%2F..%2Fetc%2Fpasswd',
        '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
        '%2E%2E',
        '%2Fetc%2Fpasswd',
        'nested%2F..%2F..%2Freport.md',
        'nested%2F.%2Fdeep%2Fdata.bin',
        'nested%2F%2Fdeep%2Fdata.bin',
        '..%5C..%5Cetc%5Cpasswd',
        'report.md%00.txt',
        'passwd-link',
        'up-link',
        'fifo',
        'nested',
      ];
      for (const path of refused) {
        const answer = await download(path);
        expect(answer.status, path).to.equal(400);
        const problem = (await answer.json()) as { code: string; errors?: Array<{ path: string }> };
        expect(problem.code, path).to.equal('invalid_artifact_path');
        expect(
          problem.errors?.map((error) => error.path),
          path,
        ).to.deep.equal(['/params/path']);
      }
      for (const path of ['missing.txt', '..%252F..%252Fetc%252Fpasswd', 'nested%2Fmissing.bin']) {
        const answer = await download(path);
        expect(answer.status, path).to.equal(404);
        expect(((await answer.json()) as { code: string }).code, path).to.equal('artifact_not_found');
      }
      const unknownRun = '00000000-0000-4000-8000-000000000000';
      expect((await download('report.md', unknownRun)).status).to.equal(404);
      expect((await harness.call('GET', `/api/workflows/runs/${unknownRun}/artifacts`)).status).to.equal(404);
    });

    it('lists nothing for a run that wrote nothing', async () => {
      const { run } = await harness.runToEnd('nothing', 'idle');
      const { status, body } = await harness.call<ArtifactList>(
        'GET',
        `/api/workflows/runs/${run.runId}/artifacts`,
      );
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ runId: run.runId, artifacts: [], truncated: false });
      expect((await download('report.md', run.runId)).status).to.equal(404);
    });
  });
}
