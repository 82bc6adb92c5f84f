import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeHostMonitor } from '../../services/codehost/code-host-monitor.js';
import { databaseKinds } from '../support/databases.js';
import { startLiveCore, type LiveCore } from '../support/live-core.js';
import { startTestCoreApp } from '../support/core-app.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { signGitHub, startFakeGitHub, type FakeGitHub } from '../support/fakes/github-api.js';

const SECRET = 'webhook-secret-for-app-tests';
const REPO = 'acme/widgets';
const APP_ID = 4242;
const INSTALLATION = 777;

let commentIds = 9000;
let gitBase = 'https://github.com';

/** The App's key pair, as GitHub hands out the private half (PKCS#1 PEM). */
function appKeys(): { privatePem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey };
}

/** An issue_comment payload delivered through the App's webhook: it names the installation. */
function commentPayload(issue: number, body: string, pull = false) {
  return {
    action: 'created',
    installation: { id: INSTALLATION, node_id: 'MDIz' },
    issue: {
      number: issue,
      title: `Issue ${issue}`,
      body: 'Widgets wobble.',
      html_url: `https://github.com/${REPO}/issues/${issue}`,
      user: { login: 'reporter', id: 7, type: 'User' },
      ...(pull ? { pull_request: { url: 'x' } } : {}),
    },
    comment: {
      id: commentIds++,
      body,
      user: { login: 'alice', id: 5, type: 'User' },
      updated_at: '2026-11-27T10:00:00Z',
      html_url: 'https://github.com/x',
    },
    repository: {
      full_name: REPO,
      clone_url: `${gitBase}/${REPO}.git`,
      default_branch: 'main',
      private: true,
    },
    sender: { login: 'alice', id: 5, type: 'User' },
  };
}

/**
 * Cairn as a GitHub App end to end: no GITHUB_TOKEN, only the App's ID and key. The fake GitHub
 * checks each JWT with the App's public key, issues installation tokens, and records which
 * credentials every call (API and git) came with.
 */
for (const kind of databaseKinds()) {
  describe(`GitHub App authentication (fake GitHub API, live workers) on ${kind.name}`, function () {
    this.timeout(3 * 60_000);
    let github: FakeGitHub;
    let core: LiveCore;
    let monitor: CodeHostMonitor | undefined;
    let deliveries = 0;
    const keys = appKeys();

    async function deliver(payload: unknown) {
      const body = JSON.stringify(payload);
      const response = await fetch(`${core.app.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-github-delivery': `app-delivery-${deliveries++}`,
          'x-hub-signature-256': signGitHub(SECRET, body),
        },
        body,
      });
      expect(response.status).to.equal(202);
    }

    async function answerTo(issue: number, text: string) {
      await deliver(commentPayload(issue, `@cairn-bot\n[fake:reply ${text}]`));
      return github.waitFor(
        () =>
          github.comments.find((comment) => comment.thread === `${REPO}#${issue}` && comment.body === text),
        `the answer in #${issue}`,
      );
    }

    const commentPosts = (issue: number) =>
      github.callsOf('POST', new RegExp(`^/repos/${REPO}/issues/${issue}/comments$`));
    const tokenExchanges = () =>
      github.callsOf('POST', new RegExp(`^/app/installations/${INSTALLATION}/access_tokens$`));

    before(async () => {
      github = await startFakeGitHub();
      github.app = { id: APP_ID, slug: 'cairn-app', publicKey: keys.publicKey };
      github.installations.set(REPO, INSTALLATION);
      github.permissions.set('alice', 'write');
      core = await startLiveCore(
        kind,
        {
          'README.md': '# widgets\n',
          '.cairn/workflows/tidy.yaml':
            'name: tidy\ndescription: passes\nnodes:\n  - id: look\n    bash: ls\n',
          '.cairn/workflows/broken.yaml':
            'name: broken\ndescription: fails\nnodes:\n  - id: fail\n    bash: echo nope >&2; exit 3\n',
        },
        {
          env: {
            GITHUB_APP_ID: String(APP_ID),
            GITHUB_APP_PRIVATE_KEY: keys.privatePem,
            GITHUB_API_URL: github.url,
            WEBHOOK_SECRET: SECRET,
            GITHUB_BOT_MENTION: 'cairn-bot',
            PUBLIC_URL: 'https://cairn.example.com/',
          },
          app: { codeHostStates: () => monitor?.states() ?? {} },
        },
      );
      github.git.host(REPO, core.repo.path);
      gitBase = github.url;
      monitor = new CodeHostMonitor(core.context.environment, core.context.logger);
      await monitor.start();
    });

    after(async () => {
      monitor?.stop();
      await core?.close();
      await github?.close();
    });

    it('answers a mention with the installation token, for the API and for the clone', async () => {
      await answerTo(1, 'Tighten the bolts.');
      const [exchange] = tokenExchanges();
      expect(exchange, 'a token exchange').to.not.equal(undefined);
      expect(exchange!.status).to.equal(201);
      // The webhook named the installation: no lookup by repository was needed.
      expect(github.callsOf('GET', new RegExp(`^/repos/${REPO}/installation$`))).to.have.length(0);
      const [issued] = [...github.installationTokens.keys()];
      for (const post of commentPosts(1)) expect(post.authorization).to.equal(`token ${issued}`);
      // The JWT: RS256 by the App's key (the fake verified it), iat 60 s back, exp at most 10 minutes on.
      const claims = github.acceptedJwts[0]!;
      expect(claims.iss).to.equal(APP_ID);
      expect(claims.exp - claims.iat).to.be.at.most(600);
      // git cloned the repository with the same token, sent as a header, never in the URL.
      const clone = github.calls.find((call) => call.path.startsWith(`/${REPO}.git/`) && call.status === 200);
      expect(clone?.authorization).to.equal(
        `Basic ${Buffer.from(`x-access-token:${issued}`).toString('base64')}`,
      );
      const [codebase] = await core.test.db.knex('codebases').select('source_path');
      const gitConfig = readFileSync(join(codebase.source_path as string, '.git', 'config'), 'utf8');
      expect(gitConfig).to.contain(`${REPO}.git`).and.not.contain(issued!);
    });

    it('gets a new token when GitHub refuses the cached one as expired, and answers once', async () => {
      await answerTo(2, 'First answer.');
      const exchangesBefore = tokenExchanges().length;
      github.expireInstallationTokens();
      await answerTo(3, 'After the expiry.');
      expect(tokenExchanges().length).to.be.greaterThan(exchangesBefore);
      const live = [...github.installationTokens.entries()].filter(([, held]) => held.expiresAt > Date.now());
      expect(live).to.have.length(1);
      const posted = commentPosts(3).filter((call) => call.status === 201);
      expect(posted).to.have.length(1);
      expect(posted[0]!.authorization).to.equal(`token ${live[0]![0]}`);
      expect(github.comments.filter((comment) => comment.thread === `${REPO}#3`)).to.have.length(1);
    });

    it('shows a workflow run started in a pull request as one check run on its head, completed with the outcome', async () => {
      const head = github.pushPull(REPO, 20, core.repo.path);
      // The repository is registered on its first mention (the first test).
      await answerTo(1, 'Still here.');
      await deliver(commentPayload(20, '/workflow run tidy', true));
      const passed = await github.waitFor(
        () => github.checkRuns.find((run) => run.name === 'cairn/tidy' && run.status === 'completed'),
        'the check run of tidy to complete',
      );
      expect(passed.headSha).to.equal(head);
      expect(passed.conclusion).to.equal('success');
      expect(passed.states).to.deep.equal(['in_progress', 'completed:success']);
      expect(passed.detailsUrl).to.equal(`https://cairn.example.com/runs/${passed.externalId}`);
      const [run] = await core.test.db
        .knex('workflow_runs')
        .where({ id: passed.externalId })
        .select('status');
      expect(run?.status).to.equal('completed');
      expect(passed.output?.summary).to.contain(passed.externalId).and.contain('completed');

      await deliver(commentPayload(20, '/workflow run broken', true));
      const failed = await github.waitFor(
        () => github.checkRuns.find((run) => run.name === 'cairn/broken' && run.status === 'completed'),
        'the check run of broken to complete',
      );
      expect(failed.conclusion).to.equal('failure');
      expect(failed.output?.title).to.equal('broken failed');
      // One check run per workflow run, made with the installation token.
      expect(github.checkRuns).to.have.length(2);
      for (const call of github.callsOf('POST', new RegExp(`^/repos/${REPO}/check-runs$`)))
        expect(call.authorization).to.match(/^token ghs_/);
    });

    it('shows the App in /api/health: ready as its bot, or failing with the reason for a bad key, without a crash', async () => {
      const health = (await (await fetch(`${core.app.url}/api/health`)).json()) as {
        codeHosts?: Record<string, { status: string; detail: string }>;
      };
      expect(health.codeHosts?.github).to.include({ status: 'ready', detail: 'as @cairn-app[bot]' });

      const environment = core.context.environment;
      const otherKey = appKeys().privatePem;
      const folder = makeTempDir('cairn-app-key-');
      const keyFile = join(folder.path, 'app.pem');
      writeFileSync(keyFile, 'not a key at all\n');
      const cases = [
        { appPrivateKey: otherKey, reason: 'A JSON web token could not be decoded' },
        {
          appPrivateKey: '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n',
          reason: 'GITHUB_APP_PRIVATE_KEY is not a PEM RSA private key',
        },
        {
          appPrivateKey: undefined,
          appPrivateKeyPath: keyFile,
          reason: 'GITHUB_APP_PRIVATE_KEY_PATH is not a PEM RSA private key',
        },
        {
          appPrivateKey: undefined,
          appPrivateKeyPath: join(folder.path, 'missing.pem'),
          reason: 'GITHUB_APP_PRIVATE_KEY_PATH cannot be read',
        },
      ];
      try {
        for (const { reason, ...key } of cases) {
          const bad = new CodeHostMonitor(
            { ...environment, github: { ...environment.github, ...key } },
            core.context.logger,
          );
          await bad.start();
          bad.stop();
          const app = await startTestCoreApp(core.test.db, core.context, core.workers, {
            codeHostStates: () => bad.states(),
          });
          try {
            const answer = (await (await fetch(`${app.url}/api/health`)).json()) as typeof health;
            expect(answer.codeHosts?.github?.status, reason).to.equal('failing');
            expect(answer.codeHosts?.github?.detail).to.contain(reason).and.not.contain('PRIVATE KEY-----');
          } finally {
            await app.close();
          }
        }
      } finally {
        folder.cleanup();
      }
    });
  });
}
