import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { GitHubApp } from '../../../infra/codehost/github-app.js';
import { startFakeGitHub, type FakeGitHub } from '../../support/fakes/github-api.js';

const MINUTE = 60_000;

/**
 * The GitHub App's token cache against the fake GitHub API, with the clocks of both moved ahead
 * together: a token is used until a few minutes before its expires_at, then exchanged again.
 */
describe('GitHub App installation tokens (fake GitHub API)', () => {
  let github: FakeGitHub;
  let app: GitHubApp;

  beforeEach(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    github = await startFakeGitHub();
    github.app = { id: 31, slug: 'cairn-app', publicKey };
    github.installations.set('acme/one', 501);
    github.installations.set('acme/two', 502);
    app = new GitHubApp({
      appId: '31',
      // PKCS#8 here (GitHub hands out PKCS#1; both are read).
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      apiUrl: github.url,
      now: () => Date.now() + github.clockOffsetMs,
    });
  });

  afterEach(async () => {
    await github.close();
  });

  const exchanges = () => github.callsOf('POST', /^\/app\/installations\/\d+\/access_tokens$/);

  it('keeps a token until five minutes before its expires_at, then gets a new one before any call is refused', async () => {
    const first = await app.tokenFor('acme/one');
    github.clockOffsetMs = 54 * MINUTE;
    expect(await app.tokenFor('acme/one')).to.equal(first);
    expect(exchanges()).to.have.length(1);
    github.clockOffsetMs = 56 * MINUTE;
    const second = await app.tokenFor('acme/one');
    expect(second).to.not.equal(first);
    expect(exchanges()).to.have.length(2);
    // The JWT signed an hour on was accepted: it is signed again when its 10 minutes are up.
    expect(github.acceptedJwts.at(-1)!.iat).to.be.greaterThan(github.acceptedJwts[0]!.iat + 50 * 60);
    expect(github.calls.filter((call) => call.status === 401)).to.have.length(0);
  });

  it('finds each repository’s installation once, and shares one exchange between concurrent calls', async () => {
    const tokens = await Promise.all([
      app.tokenFor('acme/one'),
      app.tokenFor('ACME/One'),
      app.tokenFor('acme/two'),
    ]);
    expect(tokens[0]).to.equal(tokens[1]);
    expect(tokens[2]).to.not.equal(tokens[0]);
    expect(
      exchanges()
        .map((call) => call.path)
        .sort(),
    ).to.deep.equal(['/app/installations/501/access_tokens', '/app/installations/502/access_tokens']);
    app.rememberInstallation('acme/three', 501);
    expect(await app.tokenFor('acme/three')).to.equal(tokens[0]);
    expect(github.callsOf('GET', /\/installation$/)).to.have.length(2);
  });

  it('looks the installation up again after the App was installed anew on the repository', async () => {
    await app.tokenFor('acme/one');
    github.installations.set('acme/one', 601);
    github.clockOffsetMs = 56 * MINUTE;
    const gone = await app.tokenFor('acme/one').catch((error: { status?: number }) => error);
    expect((gone as { status?: number }).status).to.equal(404);
    await app.tokenFor('acme/one');
    expect(exchanges().map((call) => call.path)).to.deep.equal([
      '/app/installations/501/access_tokens',
      '/app/installations/501/access_tokens',
      '/app/installations/601/access_tokens',
    ]);
  });

  it('says so when the App is not installed on a repository', async () => {
    const refused = await app.tokenFor('acme/elsewhere').catch((error: Error & { status?: number }) => error);
    expect((refused as { status?: number }).status).to.equal(404);
    expect(exchanges()).to.have.length(0);
  });
});
