import { expect } from 'chai';
import {
  isLocalUrl,
  localIdentity,
  redactUrl,
  remoteRepositoryIdentity,
  RepositoryUrlError,
} from '../../../domain/codebases/repository-identity.js';

describe('repository identity', () => {
  it('gives https, ssh and scp-like URLs of one repository the same key', () => {
    const keys = [
      'https://github.com/Acme/Widgets.git',
      'https://github.com/acme/widgets',
      'ssh://git@github.com/acme/widgets.git',
      'git@github.com:acme/widgets.git',
      'https://user:token@github.com/acme/widgets.git',
    ].map((url) => remoteRepositoryIdentity(url).key);
    expect(new Set(keys)).to.deep.equal(new Set(['github.com/acme/widgets']));
    expect(remoteRepositoryIdentity('git@github.com:Acme/Widgets.git')).to.include({
      owner: 'Acme',
      name: 'Widgets',
    });
  });

  it('folds GitLab subgroups into one owner folder', () => {
    const identity = remoteRepositoryIdentity('https://gitlab.example.com/group/sub/project.git');
    expect(identity).to.include({
      owner: 'group-sub',
      name: 'project',
      key: 'gitlab.example.com/group/sub/project',
    });
  });

  it('never keeps credentials in what it stores', () => {
    const identity = remoteRepositoryIdentity('https://user:s3cret@github.com/acme/widgets.git');
    expect(identity.displayUrl).to.equal('https://github.com/acme/widgets.git');
    expect(redactUrl('ssh://git:pw@host/x')).to.equal('ssh://host/x');
  });

  it('names local repositories by their path', () => {
    expect(localIdentity('/srv/repos/app.git/')).to.include({
      key: 'file:/srv/repos/app.git',
      owner: 'local',
      name: 'app',
    });
    expect(isLocalUrl('file:///srv/x')).to.equal(true);
    expect(isLocalUrl('/srv/x')).to.equal(true);
    expect(isLocalUrl('https://x/y')).to.equal(false);
  });

  it('refuses URLs it cannot read, without echoing credentials', () => {
    for (const bad of ['ftp://host/repo', 'just-words', 'https://', 'https://github.com/']) {
      expect(() => remoteRepositoryIdentity(bad), bad).to.throw(RepositoryUrlError);
    }
    expect(() => remoteRepositoryIdentity('https://u:hunter2@/'))
      .to.throw(RepositoryUrlError)
      .with.property('message')
      .that.does.not.include('hunter2');
    for (const hostile of [
      '-uid:x',
      '--upload-pack=touch /tmp/x',
      'ext::sh -c touch% /tmp/pwned',
      'https://h/a\u0000b',
      'git@host:acme/a%zz.git',
    ]) {
      expect(() => remoteRepositoryIdentity(hostile), hostile).to.throw(RepositoryUrlError);
    }
    expect(redactUrl('https://user:p@ss@github.com/a/b.git')).to.equal('https://github.com/a/b.git');
  });

  it('makes folder names safe', () => {
    expect(remoteRepositoryIdentity('https://host.example/we ird/..name.git')).to.include({
      owner: 'we-ird',
      name: 'name',
    });
  });
});
