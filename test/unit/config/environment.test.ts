import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '../../../config/errors.js';
import { describeEnvironmentVariables, readEnvironment } from '../../../config/environment.js';

function errorFor(env: NodeJS.ProcessEnv): ConfigError {
  try {
    readEnvironment(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.fail('readEnvironment should have thrown');
}

describe('config/environment', () => {
  describe('readEnvironment defaults', () => {
    it('applies every default when nothing is set', () => {
      expect(readEnvironment({})).to.deep.equal({
        general: {
          home: path.join(os.homedir(), '.cairn'),
          toolCache: path.join(os.homedir(), '.cache', 'cairn'),
          port: undefined,
          logLevel: 'info',
          botDisplayName: 'Cairn',
          defaultAssistant: undefined,
          maxConcurrentConversations: undefined,
          sessionRetentionDays: 30,
          suppressNestedClaudeWarning: false,
        },
        claude: {
          useGlobalAuth: undefined,
          oauthToken: undefined,
          apiKey: undefined,
          anthropicApiKey: undefined,
          titleGenerationModel: undefined,
          firstEventTimeoutMs: 60000,
          binPath: undefined,
        },
        codex: {
          idToken: undefined,
          accessToken: undefined,
          refreshToken: undefined,
          accountId: undefined,
          binPath: undefined,
        },
        telegram: {
          botToken: undefined,
          allowedUserIds: [],
          streamingMode: undefined,
          apiRoot: 'https://api.telegram.org',
        },
        discord: {
          botToken: undefined,
          allowedUserIds: [],
          streamingMode: undefined,
          apiUrl: 'https://discord.com/api',
        },
        slack: {
          botToken: undefined,
          allowedUserIds: [],
          streamingMode: undefined,
          appToken: undefined,
          apiUrl: 'https://slack.com/api/',
        },
        github: {
          token: undefined,
          webhookSecret: undefined,
          allowedUsers: [],
          botMention: 'Cairn',
          apiUrl: 'https://api.github.com',
          appId: undefined,
          appPrivateKey: undefined,
          appPrivateKeyPath: undefined,
          publicUrl: undefined,
        },
        gitlab: {
          url: undefined,
          token: undefined,
          webhookSecret: undefined,
          webhookSigningSecret: undefined,
          allowedUsers: [],
          botMention: 'Cairn',
        },
        temporal: {
          address: undefined,
          namespace: 'default',
          cliPath: undefined,
          uiPort: undefined,
          uiUrl: undefined,
        },
        tracing: {
          endpoint: undefined,
          tracesEndpoint: undefined,
          protocol: 'http/protobuf',
          headers: undefined,
          serviceName: undefined,
          sampler: undefined,
          samplerArg: undefined,
        },
        server: {
          databaseUrl: undefined,
          host: '127.0.0.1',
          webUiOrigin: undefined,
          allowedHosts: [],
          validateResponses: false,
          trustProxy: false,
          metricsPort: undefined,
          webUiDev: false,
        },
        cleanup: { staleThresholdDays: 14, maxWorktreesPerCodebase: 25, intervalHours: 6 },
        deployment: {
          data: undefined,
          domain: undefined,
          proxyBasicAuth: undefined,
          authUsername: undefined,
          authPasswordHash: undefined,
          cookieSecret: undefined,
          apiToken: undefined,
          authServicePort: 9000,
          cookieMaxAge: 86400,
        },
      });
    });

    it('treats blank values as unset', () => {
      const environment = readEnvironment({ PORT: '', LOG_LEVEL: '  ', STALE_THRESHOLD_DAYS: '' });
      expect(environment.general.port).to.equal(undefined);
      expect(environment.general.logLevel).to.equal('info');
      expect(environment.cleanup.staleThresholdDays).to.equal(14);
    });

    it('returns a deeply frozen object', () => {
      const environment = readEnvironment({ TELEGRAM_ALLOWED_USER_IDS: '1,2' });
      expect(Object.isFrozen(environment)).to.equal(true);
      expect(Object.isFrozen(environment.general)).to.equal(true);
      expect(Object.isFrozen(environment.telegram.allowedUserIds)).to.equal(true);
    });
  });

  describe('readEnvironment values', () => {
    it('parses numbers, enums and booleans', () => {
      const environment = readEnvironment({
        PORT: '3191',
        LOG_LEVEL: 'DEBUG',
        DEFAULT_AI_ASSISTANT: 'codex',
        MAX_CONCURRENT_CONVERSATIONS: '4',
        SESSION_RETENTION_DAYS: '7',
        CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING: '1',
        CLAUDE_USE_GLOBAL_AUTH: 'false',
        CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS: '500',
        TELEGRAM_STREAMING_MODE: 'batch',
        SLACK_STREAMING_MODE: 'Stream',
        WEB_UI_DEV: 'yes',
        TEMPORAL_UI_PORT: '8300',
        TEMPORAL_NAMESPACE: 'cairn',
        COOKIE_SECRET: 'ab'.repeat(32),
        COOKIE_MAX_AGE: '60',
        AUTH_SERVICE_PORT: '9100',
        CLEANUP_INTERVAL_HOURS: '1',
      });
      expect(environment.general).to.include({
        port: 3191,
        logLevel: 'debug',
        defaultAssistant: 'codex',
        maxConcurrentConversations: 4,
        sessionRetentionDays: 7,
        suppressNestedClaudeWarning: true,
      });
      expect(environment.claude.useGlobalAuth).to.equal(false);
      expect(environment.claude.firstEventTimeoutMs).to.equal(500);
      expect(environment.telegram.streamingMode).to.equal('batch');
      expect(environment.slack.streamingMode).to.equal('stream');
      expect(environment.server.webUiDev).to.equal(true);
      expect(environment.temporal).to.include({ uiPort: 8300, namespace: 'cairn' });
      expect(environment.deployment).to.include({ cookieMaxAge: 60, authServicePort: 9100 });
      expect(environment.cleanup.intervalHours).to.equal(1);
    });

    it('reads CAIRN_HOME and expands ~ in executable paths', () => {
      const environment = readEnvironment({ CAIRN_HOME: '/srv/cairn', CLAUDE_BIN_PATH: '~/bin/claude' });
      expect(environment.general.home).to.equal('/srv/cairn');
      expect(environment.claude.binPath).to.equal(path.join(os.homedir(), 'bin', 'claude'));
    });

    it('accepts GH_TOKEN as an alias of GITHUB_TOKEN, GITHUB_TOKEN winning', () => {
      expect(readEnvironment({ GH_TOKEN: 'gh' }).github.token).to.equal('gh');
      expect(readEnvironment({ GH_TOKEN: 'gh', GITHUB_TOKEN: 'main' }).github.token).to.equal('main');
      expect(readEnvironment({ GH_TOKEN: 'gh', GITHUB_TOKEN: '' }).github.token).to.equal('gh');
    });

    it('splits comma lists, trimming and dropping empty items', () => {
      const environment = readEnvironment({
        TELEGRAM_ALLOWED_USER_IDS: ' 12, 34 ,,56 ',
        DISCORD_ALLOWED_USER_IDS: '99',
        SLACK_ALLOWED_USER_IDS: 'U1,U2',
        GITHUB_ALLOWED_USERS: 'Alice, BOB',
        GITLAB_ALLOWED_USERS: 'Carol',
      });
      expect(environment.telegram.allowedUserIds).to.deep.equal(['12', '34', '56']);
      expect(environment.discord.allowedUserIds).to.deep.equal(['99']);
      expect(environment.slack.allowedUserIds).to.deep.equal(['U1', 'U2']);
      expect(environment.github.allowedUsers).to.deep.equal(['alice', 'bob']);
      expect(environment.gitlab.allowedUsers).to.deep.equal(['carol']);
    });

    it('defaults the bot mentions to BOT_DISPLAY_NAME', () => {
      const environment = readEnvironment({ BOT_DISPLAY_NAME: 'Helper', GITLAB_BOT_MENTION: 'gl-bot' });
      expect(environment.general.botDisplayName).to.equal('Helper');
      expect(environment.github.botMention).to.equal('Helper');
      expect(environment.gitlab.botMention).to.equal('gl-bot');
    });

    it('keeps both Claude API key variables', () => {
      const environment = readEnvironment({ CLAUDE_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' });
      expect(environment.claude).to.include({ apiKey: 'a', anthropicApiKey: 'b' });
    });
  });

  describe('readEnvironment errors', () => {
    const cases: Array<[string, string, string]> = [
      ['PORT', 'abc', 'an integer between 1 and 65535'],
      ['PORT', '70000', 'an integer between 1 and 65535'],
      ['PORT', '3.5', 'an integer between 1 and 65535'],
      ['TEMPORAL_UI_PORT', '0', 'an integer between 1 and 65535'],
      ['AUTH_SERVICE_PORT', '-1', 'an integer between 1 and 65535'],
      ['LOG_LEVEL', 'loud', 'fatal, error, warn, info, debug, trace, silent'],
      ['DEFAULT_AI_ASSISTANT', 'gpt', 'claude, codex'],
      ['TELEGRAM_STREAMING_MODE', 'live', 'stream, batch'],
      ['DISCORD_STREAMING_MODE', 'x', 'stream, batch'],
      ['SLACK_STREAMING_MODE', 'x', 'stream, batch'],
      ['MAX_CONCURRENT_CONVERSATIONS', '0', 'an integer >= 1'],
      ['SESSION_RETENTION_DAYS', 'month', 'an integer >= 1'],
      ['STALE_THRESHOLD_DAYS', '0', 'an integer >= 1'],
      ['MAX_WORKTREES_PER_CODEBASE', '1e3', 'an integer >= 1'],
      ['CLEANUP_INTERVAL_HOURS', '0', 'an integer >= 1'],
      ['COOKIE_MAX_AGE', '-5', 'an integer >= 1'],
      ['CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS', 'soon', 'an integer >= 1'],
      ['CLAUDE_USE_GLOBAL_AUTH', 'maybe', 'true, false'],
      ['WEB_UI_DEV', 'perhaps', 'true, false'],
      ['CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING', '2', 'true, false'],
    ];
    for (const [name, value, accepted] of cases) {
      it(`rejects ${name}=${value}, naming the variable and what it accepts`, () => {
        const error = errorFor({ [name]: value });
        expect(error.names).to.deep.equal([name]);
        expect(error.message).to.contain(name).and.to.contain(accepted);
        expect(error.message).to.contain(JSON.stringify(value));
      });
    }

    it('reports every bad variable in one error', () => {
      const error = errorFor({ PORT: 'x', LOG_LEVEL: 'y', STALE_THRESHOLD_DAYS: 'z' });
      expect(error.names).to.have.members(['PORT', 'LOG_LEVEL', 'STALE_THRESHOLD_DAYS']);
    });

    it('never puts a secret value in the message', () => {
      const error = errorFor({ COOKIE_SECRET: 'not-hex-super-secret' });
      expect(error.names).to.deep.equal(['COOKIE_SECRET']);
      expect(error.message).to.contain('64 hexadecimal characters');
      expect(error.message).not.to.contain('super-secret');
    });
  });

  describe('describeEnvironmentVariables', () => {
    const rows = describeEnvironmentVariables();
    const byName = new Map(rows.map((row) => [row.name, row]));

    it('lists every variable the spec names, once', () => {
      const expected = [
        'CAIRN_HOME',
        'PORT',
        'LOG_LEVEL',
        'BOT_DISPLAY_NAME',
        'DEFAULT_AI_ASSISTANT',
        'MAX_CONCURRENT_CONVERSATIONS',
        'SESSION_RETENTION_DAYS',
        'CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING',
        'CLAUDE_USE_GLOBAL_AUTH',
        'CLAUDE_CODE_OAUTH_TOKEN',
        'CLAUDE_API_KEY',
        'ANTHROPIC_API_KEY',
        'TITLE_GENERATION_MODEL',
        'CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS',
        'CODEX_ID_TOKEN',
        'CODEX_ACCESS_TOKEN',
        'CODEX_REFRESH_TOKEN',
        'CODEX_ACCOUNT_ID',
        'CLAUDE_BIN_PATH',
        'CODEX_BIN_PATH',
        'TELEGRAM_BOT_TOKEN',
        'TELEGRAM_ALLOWED_USER_IDS',
        'TELEGRAM_STREAMING_MODE',
        'TELEGRAM_API_ROOT',
        'DISCORD_BOT_TOKEN',
        'DISCORD_ALLOWED_USER_IDS',
        'DISCORD_STREAMING_MODE',
        'DISCORD_API_URL',
        'SLACK_BOT_TOKEN',
        'SLACK_APP_TOKEN',
        'SLACK_ALLOWED_USER_IDS',
        'SLACK_STREAMING_MODE',
        'SLACK_API_URL',
        'GITHUB_TOKEN',
        'GH_TOKEN',
        'WEBHOOK_SECRET',
        'GITHUB_ALLOWED_USERS',
        'GITHUB_BOT_MENTION',
        'GITHUB_API_URL',
        'GITHUB_APP_ID',
        'GITHUB_APP_PRIVATE_KEY',
        'GITHUB_APP_PRIVATE_KEY_PATH',
        'PUBLIC_URL',
        'GITLAB_URL',
        'GITLAB_TOKEN',
        'GITLAB_WEBHOOK_SECRET',
        'GITLAB_WEBHOOK_SIGNING_SECRET',
        'GITLAB_ALLOWED_USERS',
        'GITLAB_BOT_MENTION',
        'DATABASE_URL',
        'HOST',
        'WEB_UI_ORIGIN',
        'ALLOWED_HOSTS',
        'CAIRN_VALIDATE_RESPONSES',
        'TRUST_PROXY',
        'METRICS_PORT',
        'WEB_UI_DEV',
        'STALE_THRESHOLD_DAYS',
        'MAX_WORKTREES_PER_CODEBASE',
        'CLEANUP_INTERVAL_HOURS',
        'CAIRN_DATA',
        'DOMAIN',
        'PROXY_BASIC_AUTH',
        'AUTH_USERNAME',
        'AUTH_PASSWORD_HASH',
        'COOKIE_SECRET',
        'CAIRN_API_TOKEN',
        'AUTH_SERVICE_PORT',
        'COOKIE_MAX_AGE',
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_CLI_PATH',
        'TEMPORAL_UI_PORT',
        'TEMPORAL_UI_URL',
        'CAIRN_TOOL_CACHE',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        'OTEL_EXPORTER_OTLP_PROTOCOL',
        'OTEL_EXPORTER_OTLP_HEADERS',
        'OTEL_SERVICE_NAME',
        'OTEL_TRACES_SAMPLER',
        'OTEL_TRACES_SAMPLER_ARG',
      ];
      expect(rows.map((row) => row.name)).to.have.members(expected);
      expect(new Set(rows.map((row) => row.name)).size).to.equal(rows.length);
    });

    it('documents the defaults the reader applies', () => {
      const defaults: Record<string, string> = {
        LOG_LEVEL: 'info',
        BOT_DISPLAY_NAME: 'Cairn',
        SESSION_RETENTION_DAYS: '30',
        CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS: '60000',
        WEB_UI_ORIGIN: "unset: the service's own pages only",
        ALLOWED_HOSTS: 'empty',
        STALE_THRESHOLD_DAYS: '14',
        MAX_WORKTREES_PER_CODEBASE: '25',
        CLEANUP_INTERVAL_HOURS: '6',
        AUTH_SERVICE_PORT: '9000',
        COOKIE_MAX_AGE: '86400',
        TEMPORAL_NAMESPACE: 'default',
        CAIRN_HOME: '~/.cairn',
      };
      for (const [name, value] of Object.entries(defaults)) {
        expect(byName.get(name)?.default, name).to.equal(value);
      }
    });

    it('marks credentials as secret and everything has a description', () => {
      for (const name of ['GITHUB_TOKEN', 'GH_TOKEN', 'CLAUDE_API_KEY', 'COOKIE_SECRET', 'DATABASE_URL']) {
        expect(byName.get(name)?.secret, name).to.equal(true);
      }
      for (const name of ['PORT', 'LOG_LEVEL', 'CAIRN_HOME']) {
        expect(byName.get(name)?.secret, name).to.equal(false);
      }
      expect(byName.get('GH_TOKEN')?.aliasOf).to.equal('GITHUB_TOKEN');
      for (const row of rows) expect(row.description, row.name).to.be.a('string').and.not.equal('');
    });
  });
});
