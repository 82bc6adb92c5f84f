import { expect } from 'chai';
import {
  requestKey,
  textAfterMention,
  threadKey,
  parseThreadKey,
} from '../../../domain/codehost/code-host-request.js';
import { githubRequest } from '../../../domain/codehost/github-payloads.js';
import { gitlabRequest } from '../../../domain/codehost/gitlab-payloads.js';
import {
  verifyGitHubSignature,
  verifyGitLabToken,
  verifyStandardWebhook,
} from '../../../infra/codehost/webhook-signatures.js';
import { signGitHub } from '../../support/fakes/github-api.js';
import { signGitLab } from '../../support/fakes/gitlab-api.js';

const SIGNING = `whsec_${Buffer.from('signing-key-of-32-bytes-exactly!').toString('base64')}`;

describe('reading code-host webhooks: mentions, payloads, signatures', () => {
  it('finds the bot mentioned as a whole name, case-insensitively, and takes the mention out', () => {
    expect(textAfterMention('@Cairn-Bot please fix', 'cairn-bot')).to.equal('please fix');
    expect(textAfterMention('hey @cairn-bot, look', '@cairn-bot')).to.equal('hey , look');
    expect(textAfterMention('@cairn-botanist hi', 'cairn-bot')).to.equal(undefined);
    expect(textAfterMention('mail@cairn-bot.dev', 'cairn-bot')).to.equal(undefined);
    expect(textAfterMention('no mention here', 'cairn-bot')).to.equal(undefined);
  });

  it('keys threads like owner/repo#12 and merge requests with !, and reads them back', () => {
    expect(threadKey('acme/shop', { kind: 'issue', number: 12 })).to.equal('acme/shop#12');
    expect(parseThreadKey('group/sub/project!3')).to.deep.equal({
      repositoryPath: 'group/sub/project',
      kind: 'pull',
      number: 3,
    });
  });

  it('reads a GitHub pull request opened from a fork mentioning the bot, and ignores other actions', () => {
    const payload = {
      action: 'opened',
      pull_request: {
        number: 7,
        title: 'Fix',
        body: '@cairn-bot review this',
        html_url: 'u',
        updated_at: '2026-11-27T00:00:00Z',
        head: { repo: { full_name: 'mallory/shop' } },
      },
      repository: { full_name: 'acme/shop', clone_url: 'https://github.com/acme/shop.git' },
      sender: { login: 'mallory', id: 9, type: 'User' },
    };
    const request = githubRequest({ event: 'pull_request', deliveryId: 'd', payload }, 'cairn-bot');
    expect(request).to.deep.include({ text: 'review this' });
    expect('thread' in request && request.thread).to.deep.include({
      kind: 'pull',
      number: 7,
      fromFork: true,
    });
    expect('trigger' in request && requestKey(request)).to.equal('acme/shop!7:thread:7@2026-11-27T00:00:00Z');
    expect(
      githubRequest(
        { event: 'pull_request', deliveryId: 'd', payload: { ...payload, action: 'closed' } },
        'cairn-bot',
      ),
    ).to.have.property('ignored');
    expect(
      githubRequest({ event: 'issue_comment', deliveryId: 'd', payload: 'not an object' }, 'cairn-bot'),
    ).to.have.property('ignored');
  });

  it('reads a GitLab note that is a command without a mention, and ignores notes on commits', () => {
    const base = {
      object_kind: 'note',
      user: { id: 4, username: 'alice' },
      project: { id: 1, path_with_namespace: 'g/p', git_http_url: 'https://gitlab.example/g/p.git' },
      issue: { iid: 2, title: 't', description: '' },
    };
    const command = gitlabRequest(
      {
        deliveryId: 'x',
        payload: {
          ...base,
          object_attributes: { id: 5, note: '/status', noteable_type: 'Issue', updated_at: 't1' },
        },
      },
      'cairn-bot',
    );
    expect(command).to.deep.include({ text: '/status' });
    const onCommit = gitlabRequest(
      {
        deliveryId: 'x',
        payload: {
          ...base,
          object_attributes: { id: 6, note: '@cairn-bot hi', noteable_type: 'Commit', updated_at: 't1' },
        },
      },
      'cairn-bot',
    );
    expect(onCommit).to.have.property('ignored');
    const tokenBot = gitlabRequest(
      {
        deliveryId: 'x',
        payload: {
          ...base,
          user: { id: 8, username: 'project_1_bot_0a1b' },
          object_attributes: { id: 7, note: '@cairn-bot hi', noteable_type: 'Issue', updated_at: 't1' },
        },
      },
      'cairn-bot',
    );
    expect('actor' in tokenBot && tokenBot.actor.isBot).to.equal(true);
  });

  it("checks GitHub's signature with @octokit/webhooks on the raw body", async () => {
    const body = '{"zen":"Design for failure."}';
    expect(await verifyGitHubSignature('s3cret', body, signGitHub('s3cret', body))).to.equal(true);
    expect(await verifyGitHubSignature('s3cret', `${body} `, signGitHub('s3cret', body))).to.equal(false);
    expect(await verifyGitHubSignature('s3cret', body, 'sha256=zz')).to.equal(false);
    expect(await verifyGitHubSignature('s3cret', body, undefined)).to.equal(false);
  });

  it("checks GitLab's token and its Standard Webhooks signature with a timestamp tolerance", () => {
    expect(verifyGitLabToken('token', 'token')).to.equal(true);
    expect(verifyGitLabToken('token', 'token2')).to.equal(false);
    expect(verifyGitLabToken('token', undefined)).to.equal(false);
    const body = '{"object_kind":"note"}';
    const now = 1_790_000_000;
    const header = (timestamp: number) => {
      const signed = signGitLab(SIGNING, 'msg_1', body, timestamp);
      return {
        id: signed['webhook-id'],
        timestamp: signed['webhook-timestamp'],
        signature: signed['webhook-signature'],
      };
    };
    expect(verifyStandardWebhook(SIGNING, header(now), body, now)).to.equal('valid');
    expect(verifyStandardWebhook(SIGNING, header(now - 299), body, now)).to.equal('valid');
    expect(verifyStandardWebhook(SIGNING, header(now - 301), body, now)).to.equal('stale');
    expect(verifyStandardWebhook(SIGNING, header(now), `${body}x`, now)).to.equal('invalid');
    expect(
      verifyStandardWebhook(SIGNING, { ...header(now), signature: 'v1,AAAA v2,xyz' }, body, now),
    ).to.equal('invalid');
    // Several signatures (a key being rotated): one valid suffices.
    const valid = header(now);
    expect(
      verifyStandardWebhook(SIGNING, { ...valid, signature: `v1,AAAA ${valid.signature}` }, body, now),
    ).to.equal('valid');
  });
});
