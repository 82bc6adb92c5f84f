import { expect } from 'chai';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { cloneAndRegister, CloneFailure } from '../../../services/codebases/clone-and-register.js';
import { registerLocalPath } from '../../../services/codebases/register-local-path.js';
import { OWNER_FILE, reserveWorkspace } from '../../../services/codebases/workspace-reservation.js';
import {
  RegistrationError,
  type RegistrationOutcome,
} from '../../../services/codebases/registration-outcome.js';
import { identityForUrl } from '../../../services/codebases/identity-for-url.js';
import type { ServiceContext } from '../../../services/context.js';
import type { Codebase } from '../../../db/repositories/codebases.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { git, makeTempRepo } from '../../support/git-repos.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const SECRET = 'sk-ant-api03-do-not-print-me-123456';

function registered(outcome: RegistrationOutcome): Codebase {
  if (outcome.outcome !== 'registered') throw new Error(`expected a registration, got ${outcome.outcome}`);
  return outcome.codebase;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

for (const kind of databaseKinds()) {
  describe(`codebase registration: workspace folders (${kind.name})`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let scratch: ReturnType<typeof makeTempDir>;
    let context: ServiceContext;
    let ownerFolder: string;

    beforeEach(async () => {
      test = await kind.create();
      scratch = makeTempDir('cairn-registration-');
      context = testServiceContext(test.db, { home: join(scratch.path, 'home') });
      ownerFolder = join(context.workspacesRoot, 'local');
    });
    afterEach(async () => {
      await test.dispose();
      scratch.cleanup();
    });

    /** A bare repository at `<scratch>/<place>/acme/app.git` holding `files`: its folder is local/app. */
    function bareApp(place: string, files: Record<string, string> = { 'README.md': `# ${place}\n` }) {
      const upstream = makeTempRepo({ files });
      const path = join(scratch.path, place, 'acme', 'app.git');
      mkdirSync(dirname(path), { recursive: true });
      git(scratch.path, 'clone', '--quiet', '--bare', upstream.path, path);
      upstream.cleanup();
      return { path, url: `file://${path}` };
    }

    /** A working checkout at `<scratch>/<place>/app`: its folder is local/app as well. */
    function checkoutApp(place: string) {
      const repo = makeTempRepo({ files: { 'README.md': `# ${place}\n` } });
      const path = join(scratch.path, place, 'app');
      mkdirSync(dirname(path), { recursive: true });
      git(scratch.path, 'clone', '--quiet', repo.path, path);
      repo.cleanup();
      return path;
    }

    it('gives two repositories with the same owner/name their own folders when registered at once', async () => {
      const a = bareApp('a');
      const b = bareApp('b');
      const path = checkoutApp('c');
      const [first, second, third] = (
        await Promise.all([
          cloneAndRegister(context, { url: a.url, allowEnvKeys: false }),
          cloneAndRegister(context, { url: b.url, allowEnvKeys: false }),
          registerLocalPath(context, { path, allowEnvKeys: false }),
        ])
      ).map(registered);
      const folders = [first!, second!, third!].map((codebase) => dirname(codebase.sourcePath));
      expect(new Set(folders).size).to.equal(3);
      expect(readFileSync(join(first!.sourcePath, 'README.md'), 'utf8')).to.equal('# a\n');
      expect(readFileSync(join(second!.sourcePath, 'README.md'), 'utf8')).to.equal('# b\n');
      expect(realpathSync(third!.sourcePath)).to.equal(realpathSync(path));
      // Only the three folders: no staging or reservation leftovers.
      expect(readdirSync(ownerFolder).filter((name) => name.startsWith('.'))).to.deep.equal([]);
    });

    it('never replaces a source/ it did not create: a folder another repository holds is left alone', async () => {
      // Another registration has reserved local/app and cloned, but not yet recorded its codebase.
      const other = await reserveWorkspace(identityForUrl(bareApp('other').url), context.workspacesRoot);
      mkdirSync(other.workspace.source);
      writeFileSync(join(other.workspace.source, 'theirs.txt'), 'keep me\n');

      const mine = registered(
        await cloneAndRegister(context, { url: bareApp('mine').url, allowEnvKeys: false }),
      );
      expect(dirname(mine.sourcePath)).to.not.equal(other.workspace.root);
      expect(dirname(mine.sourcePath)).to.match(/local\/app-[0-9a-f]{8}$/);
      expect(readFileSync(join(other.workspace.source, 'theirs.txt'), 'utf8')).to.equal('keep me\n');
    });

    it('treats a folder without an owner file (made before reservations) as taken', async () => {
      mkdirSync(join(ownerFolder, 'app', 'source'), { recursive: true });
      const mine = registered(
        await registerLocalPath(context, { path: checkoutApp('x'), allowEnvKeys: false }),
      );
      expect(dirname(mine.sourcePath)).to.match(/local\/app-[0-9a-f]{8}$/);
      expect(readdirSync(join(ownerFolder, 'app'))).to.deep.equal(['source']);
    });

    it('lets a retried registration of the same repository use the folder it reserved', async () => {
      const remote = bareApp('retry');
      const earlier = await reserveWorkspace(identityForUrl(remote.url), context.workspacesRoot);
      const codebase = registered(await cloneAndRegister(context, { url: remote.url, allowEnvKeys: false }));
      expect(codebase.sourcePath).to.equal(earlier.workspace.source);
      expect(readFileSync(join(earlier.workspace.root, OWNER_FILE), 'utf8').trim()).to.equal(
        identityForUrl(remote.url).key,
      );
    });

    it('removes the folders it made when the env-leak gate blocks the clone', async () => {
      const leaky = bareApp('leaky', { '.env': `ANTHROPIC_API_KEY=${SECRET}\n` });
      const outcome = await cloneAndRegister(context, { url: leaky.url, allowEnvKeys: false });
      expect(outcome.outcome).to.equal('blocked');
      expect(existsSync(join(ownerFolder, 'app'))).to.equal(false);
      expect(readdirSync(ownerFolder)).to.deep.equal([]);
    });

    it('removes the folders it made when the clone fails', async () => {
      const notARepository = join(scratch.path, 'empty', 'acme', 'app.git');
      mkdirSync(notARepository, { recursive: true });
      const error = await rejection(
        cloneAndRegister(context, { url: `file://${notARepository}`, allowEnvKeys: false }),
      );
      expect(error).to.be.instanceOf(CloneFailure);
      expect(readdirSync(ownerFolder)).to.deep.equal([]);
    });

    it("refuses with workspace_conflict when its own folder's source/ is something else", async () => {
      const path = checkoutApp('linked');
      const first = registered(await registerLocalPath(context, { path, allowEnvKeys: false }));
      // The record is gone but the folder stayed, and someone replaced the link with a folder.
      await test.db.knex('codebases').where({ id: first.id }).delete();
      const source = first.sourcePath;
      rmSync(source);
      mkdirSync(source);
      writeFileSync(join(source, 'mine.txt'), 'not a link\n');

      const error = await rejection(registerLocalPath(context, { path, allowEnvKeys: false }));
      expect(error).to.be.instanceOf(RegistrationError);
      expect((error as RegistrationError).code).to.equal('workspace_conflict');
      expect(readFileSync(join(source, 'mine.txt'), 'utf8')).to.equal('not a link\n');
    });
  });
}
