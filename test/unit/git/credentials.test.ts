import { expect } from 'chai';
import { readEnvironment } from '../../../config/environment.js';
import { gitCredentialsFor, scrubCredentials } from '../../../infra/git/credentials.js';

const environment = (env: NodeJS.ProcessEnv) =>
  readEnvironment({ ...env, CAIRN_HOME: '/tmp/cairn-cred-test' });

describe('git credentials for clones', () => {
  it('uses GITHUB_TOKEN (or GH_TOKEN) for github.com over https only', () => {
    const withToken = gitCredentialsFor(
      'https://github.com/acme/app.git',
      environment({ GH_TOKEN: 'ghp_abc123' }),
    );
    expect(withToken.env.GIT_CONFIG_COUNT).to.equal('1');
    expect(withToken.env.GIT_CONFIG_KEY_0).to.equal('http.https://github.com/.extraheader');
    const header = withToken.env.GIT_CONFIG_VALUE_0!;
    expect(Buffer.from(header.replace('Authorization: Basic ', ''), 'base64').toString()).to.equal(
      'x-access-token:ghp_abc123',
    );
    expect(withToken.secrets).to.include('ghp_abc123');

    expect(
      gitCredentialsFor('git@github.com:acme/app.git', environment({ GITHUB_TOKEN: 't' })).env,
    ).to.deep.equal({});
    expect(
      gitCredentialsFor('https://example.com/acme/app.git', environment({ GITHUB_TOKEN: 't' })).env,
    ).to.deep.equal({});
  });

  it('uses GITLAB_TOKEN for gitlab.com and for the GITLAB_URL host', () => {
    const hosted = gitCredentialsFor(
      'https://gitlab.example.org/g/app.git',
      environment({
        GITLAB_TOKEN: 'glpat-1',
        GITLAB_URL: 'https://gitlab.example.org',
      }),
    );
    expect(hosted.env.GIT_CONFIG_KEY_0).to.equal('http.https://gitlab.example.org/.extraheader');
    expect(
      gitCredentialsFor('https://gitlab.com/g/app.git', environment({ GITLAB_TOKEN: 'glpat-1' })).secrets,
    ).to.include('glpat-1');
  });

  it("uses GITHUB_TOKEN for GITHUB_API_URL's origin (scheme and port included) and GITLAB_TOKEN for GITLAB_URL's", () => {
    const both = environment({
      GITHUB_TOKEN: 'ghp_enterprise',
      GITHUB_API_URL: 'http://127.0.0.1:4100/api/v3',
      GITLAB_TOKEN: 'glpat-selfhosted',
      GITLAB_URL: 'http://127.0.0.1:4200',
    });
    const decoded = (url: string) => {
      const value = gitCredentialsFor(url, both).env.GIT_CONFIG_VALUE_0;
      return value && Buffer.from(value.replace('Authorization: Basic ', ''), 'base64').toString();
    };
    expect(decoded('http://127.0.0.1:4100/acme/app.git')).to.equal('x-access-token:ghp_enterprise');
    expect(decoded('http://127.0.0.1:4200/g/app.git')).to.equal('oauth2:glpat-selfhosted');
    // The same host on another port, or over another scheme, is another service.
    expect(decoded('http://127.0.0.1:4300/acme/app.git')).to.equal(undefined);
    expect(decoded('https://127.0.0.1:4100/acme/app.git')).to.equal(undefined);
  });

  it('scrubs URL credentials, tokens and their encoded headers from text', () => {
    const { secrets, env } = gitCredentialsFor(
      'https://github.com/a/b',
      environment({ GITHUB_TOKEN: 'ghp_secret99' }),
    );
    const encoded = env.GIT_CONFIG_VALUE_0!;
    const text = `fatal: https://user:pw@github.com/a/b: token ghp_secret99 header ${encoded}`;
    const scrubbed = scrubCredentials(text, secrets);
    expect(scrubbed).to.not.include('ghp_secret99').and.not.include('pw@').and.not.include(encoded.slice(22));
    expect(scrubbed).to.include('https://***@github.com/a/b');
  });
});
