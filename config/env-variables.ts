import { LOG_LEVELS } from './logger.js';
import { choice, derived, filePath, flag, integer, InvalidValue, list, text } from './env-readers.js';
import { resolveCairnHome, toolCacheDir } from './paths.js';

export const ASSISTANT_NAMES = ['claude', 'codex'] as const;
export const STREAMING_MODES = ['stream', 'batch'] as const;
export const DEFAULT_BOT_DISPLAY_NAME = 'Cairn';
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const PORT_RANGE = { min: 1, max: 65535 };

/** The @mention defaults to the bot's display name, itself defaulting to "Cairn". */
function botMention(name: string, platform: string) {
  return derived(name, {
    description: `@mention name the bot answers to in ${platform} issues and merge/pull requests`,
    defaultText: 'BOT_DISPLAY_NAME',
    read: (raw, env) => raw ?? (env.BOT_DISPLAY_NAME?.trim() || DEFAULT_BOT_DISPLAY_NAME),
  });
}

function chatPlatform(prefix: string, label: string, defaultMode: string) {
  return {
    botToken: text(`${prefix}_BOT_TOKEN`, {
      description: `${label} bot token; enables the adapter`,
      secret: true,
    }),
    allowedUserIds: list(`${prefix}_ALLOWED_USER_IDS`, {
      description: `Comma-separated ${label} user IDs allowed to talk to the bot`,
      defaultText: 'open access',
    }),
    // No default here: config files may set streaming.* and env must only win when set.
    streamingMode: choice(`${prefix}_STREAMING_MODE`, STREAMING_MODES, {
      description: `How replies reach ${label}: stream (while generating) or batch (final summary)`,
      defaultText: `${defaultMode} (streaming.${label.toLowerCase()} in config)`,
    }),
  };
}

/**
 * Every environment variable Cairn reads, grouped. readEnvironment() and
 * describeEnvironmentVariables() both walk this table, so the docs cannot drift from the code.
 */
export const ENVIRONMENT_TABLE = {
  general: {
    home: derived('CAIRN_HOME', {
      description: 'Base directory of managed files (config, database, workspaces, worktrees, logs)',
      defaultText: '~/.cairn',
      read: (_raw, env) => resolveCairnHome(env),
    }),
    toolCache: derived('CAIRN_TOOL_CACHE', {
      description: 'Cache for tools Cairn builds or downloads (the Temporal CLI), shared across homes',
      defaultText: '$XDG_CACHE_HOME/cairn, else ~/.cache/cairn',
      read: (_raw, env) => toolCacheDir(env),
    }),
    port: integer('PORT', {
      ...PORT_RANGE,
      description: 'HTTP listen port of the core service',
      defaultText: '3090; auto-allocated in 3190-4089 inside a git worktree',
    }),
    logLevel: choice('LOG_LEVEL', LOG_LEVELS, { description: 'Log verbosity', default: 'info' }),
    botDisplayName: text('BOT_DISPLAY_NAME', {
      description: 'Name shown in batch-mode starting messages',
      default: DEFAULT_BOT_DISPLAY_NAME,
    }),
    defaultAssistant: choice('DEFAULT_AI_ASSISTANT', ASSISTANT_NAMES, {
      description: 'Assistant used when none is named; overrides defaultAssistant in config files',
      defaultText: 'claude (defaultAssistant in config)',
    }),
    maxConcurrentConversations: integer('MAX_CONCURRENT_CONVERSATIONS', {
      min: 1,
      description: 'Maximum concurrent conversations; extra messages are queued',
      defaultText: '10 (concurrency.maxConversations in config)',
    }),
    sessionRetentionDays: integer('SESSION_RETENTION_DAYS', {
      min: 1,
      default: 30,
      description:
        'Delete assistant sessions inactive, and event journal streams finished (conversations, runs), for longer than this many days',
    }),
    suppressNestedClaudeWarning: flag('CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING', {
      default: false,
      description: '1 suppresses the stderr warning printed when Cairn runs inside a Claude Code session',
    }),
  },
  claude: {
    useGlobalAuth: flag('CLAUDE_USE_GLOBAL_AUTH', {
      description: "true/false: use Claude Code's own logged-in auth",
      defaultText: 'auto: explicit tokens if present, else global auth',
    }),
    oauthToken: text('CLAUDE_CODE_OAUTH_TOKEN', { description: 'Claude OAuth token', secret: true }),
    apiKey: text('CLAUDE_API_KEY', {
      description: 'Anthropic API key for Claude (mirrored to ANTHROPIC_API_KEY when that is unset)',
      secret: true,
    }),
    anthropicApiKey: text('ANTHROPIC_API_KEY', {
      description: 'Anthropic API key as the Claude Agent SDK reads it',
      secret: true,
    }),
    titleGenerationModel: text('TITLE_GENERATION_MODEL', {
      description: 'Lightweight model for conversation titles',
      defaultText: 'SDK default',
    }),
    firstEventTimeoutMs: integer('CAIRN_CLAUDE_FIRST_EVENT_TIMEOUT_MS', {
      min: 1,
      default: 60000,
      description: 'Milliseconds before a Claude subprocess without a first event counts as hung',
    }),
    binPath: filePath('CLAUDE_BIN_PATH', {
      description: 'Path of the Claude Code executable (overrides assistants.claude.claudeBinaryPath)',
      defaultText: 'the SDK bundled executable',
    }),
  },
  codex: {
    idToken: text('CODEX_ID_TOKEN', { description: 'Codex ID token', secret: true }),
    accessToken: text('CODEX_ACCESS_TOKEN', { description: 'Codex access token', secret: true }),
    refreshToken: text('CODEX_REFRESH_TOKEN', { description: 'Codex refresh token', secret: true }),
    accountId: text('CODEX_ACCOUNT_ID', { description: 'Codex account ID' }),
    binPath: filePath('CODEX_BIN_PATH', {
      description: 'Path of the Codex executable (overrides assistants.codex.codexBinaryPath)',
      defaultText: 'the SDK bundled executable',
    }),
  },
  telegram: {
    ...chatPlatform('TELEGRAM', 'Telegram', 'stream'),
    apiRoot: text('TELEGRAM_API_ROOT', {
      description: 'Address of the Telegram Bot API (a self-hosted Bot API server)',
      default: 'https://api.telegram.org',
    }),
  },
  discord: {
    ...chatPlatform('DISCORD', 'Discord', 'batch'),
    apiUrl: text('DISCORD_API_URL', {
      description: "Address of Discord's REST API (the gateway address comes from it)",
      default: 'https://discord.com/api',
    }),
  },
  slack: {
    ...chatPlatform('SLACK', 'Slack', 'batch'),
    appToken: text('SLACK_APP_TOKEN', { description: 'Slack app-level token for socket mode', secret: true }),
    apiUrl: text('SLACK_API_URL', {
      description: "Address of Slack's Web API (socket mode connects where it says)",
      default: 'https://slack.com/api/',
    }),
  },
  github: {
    token: text('GITHUB_TOKEN', {
      description: 'GitHub personal access token; enables the GitHub adapter',
      aliases: ['GH_TOKEN'],
      secret: true,
    }),
    webhookSecret: text('WEBHOOK_SECRET', {
      description: 'HMAC SHA-256 secret verifying GitHub webhooks (X-Hub-Signature-256)',
      secret: true,
    }),
    allowedUsers: list('GITHUB_ALLOWED_USERS', {
      description: 'Comma-separated GitHub usernames (case-insensitive) allowed to use the bot',
      defaultText: 'open access',
      lowercase: true,
    }),
    botMention: botMention('GITHUB_BOT_MENTION', 'GitHub'),
    apiUrl: text('GITHUB_API_URL', {
      description: "Address of GitHub's REST API (GitHub Enterprise Server: https://<host>/api/v3)",
      default: 'https://api.github.com',
    }),
    appId: text('GITHUB_APP_ID', {
      description:
        'GitHub App ID (or client ID); with its private key Cairn acts as the App through installation tokens, over GITHUB_TOKEN',
    }),
    appPrivateKey: text('GITHUB_APP_PRIVATE_KEY', {
      description: "The GitHub App's private key, PEM text (\\n escapes accepted)",
      secret: true,
    }),
    appPrivateKeyPath: filePath('GITHUB_APP_PRIVATE_KEY_PATH', {
      description: "File holding the GitHub App's private key (PEM), when GITHUB_APP_PRIVATE_KEY is unset",
    }),
    publicUrl: derived('PUBLIC_URL', {
      description:
        "Address people open Cairn's web page at (https://cairn.example.com): a GitHub check run or a GitLab commit status links to its run there",
      defaultText: 'https://<DOMAIN> when DOMAIN is set; no link otherwise',
      read: (raw, env) =>
        raw?.trim().replace(/\/+$/, '') || (env.DOMAIN?.trim() ? `https://${env.DOMAIN.trim()}` : undefined),
    }),
  },
  gitlab: {
    url: text('GITLAB_URL', { description: 'URL of a self-hosted GitLab instance' }),
    token: text('GITLAB_TOKEN', { description: 'GitLab token; enables the GitLab adapter', secret: true }),
    webhookSecret: text('GITLAB_WEBHOOK_SECRET', {
      description: 'Secret token of GitLab webhooks (X-Gitlab-Token, compared in constant time)',
      secret: true,
    }),
    webhookSigningSecret: text('GITLAB_WEBHOOK_SIGNING_SECRET', {
      description:
        'GitLab webhook signing token (whsec_...); when set, every webhook must carry a valid webhook-signature',
      secret: true,
    }),
    allowedUsers: list('GITLAB_ALLOWED_USERS', {
      description: 'Comma-separated GitLab usernames (case-insensitive) allowed to use the bot',
      defaultText: 'open access',
      lowercase: true,
    }),
    botMention: botMention('GITLAB_BOT_MENTION', 'GitLab'),
  },
  temporal: {
    address: text('TEMPORAL_ADDRESS', {
      description: 'Temporal frontend host:port; when unset Cairn runs an embedded dev server',
    }),
    namespace: text('TEMPORAL_NAMESPACE', { description: 'Temporal namespace', default: 'default' }),
    cliPath: filePath('TEMPORAL_CLI_PATH', {
      description: 'Path of the temporal CLI used for the embedded dev server',
      defaultText: 'PATH, then the tool cache',
    }),
    uiPort: integer('TEMPORAL_UI_PORT', {
      ...PORT_RANGE,
      description: 'Port of the embedded Temporal Web UI',
      defaultText: '8233',
    }),
    uiUrl: text('TEMPORAL_UI_URL', {
      description: "Address of the Temporal Web UI that each run's link points to",
      defaultText:
        'the embedded server UI (http://127.0.0.1:<TEMPORAL_UI_PORT>) when TEMPORAL_ADDRESS is unset; no links otherwise',
    }),
  },
  tracing: {
    endpoint: text('OTEL_EXPORTER_OTLP_ENDPOINT', {
      description:
        'OTLP/HTTP address of a trace collector (an OpenTelemetry Collector, Jaeger, Tempo: http://host:4318); set, Cairn exports traces to <address>/v1/traces',
      defaultText: 'unset: tracing off, the OpenTelemetry SDK not even loaded',
    }),
    tracesEndpoint: text('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', {
      description:
        'The full address spans are posted to, used as is; turns tracing on like OTEL_EXPORTER_OTLP_ENDPOINT',
      defaultText: 'OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces',
    }),
    protocol: choice('OTEL_EXPORTER_OTLP_PROTOCOL', OTLP_PROTOCOLS, {
      description: 'How spans are encoded: http/protobuf or http/json (gRPC is not offered)',
      default: 'http/protobuf',
    }),
    headers: text('OTEL_EXPORTER_OTLP_HEADERS', {
      description:
        "Headers sent with every export, key=value pairs separated by commas (a hosted backend's API key)",
      secret: true,
    }),
    serviceName: text('OTEL_SERVICE_NAME', {
      description: 'service.name of the spans',
      defaultText: 'cairn-api, cairn-worker, or cairn for cairn start',
    }),
    sampler: choice('OTEL_TRACES_SAMPLER', TRACE_SAMPLERS, {
      description:
        'Which traces are kept: a ratio of new traces (traceidratio), all, none; parentbased_* follow an incoming traceparent',
      defaultText: 'parentbased_traceidratio',
    }),
    samplerArg: derived('OTEL_TRACES_SAMPLER_ARG', {
      description: 'The share of traces the ratio samplers keep, 0 to 1',
      defaultText: '0.1',
      read: (raw) => {
        if (raw === undefined) return undefined;
        const value = raw.trim() === '' ? NaN : Number(raw);
        if (!(value >= 0 && value <= 1)) throw new InvalidValue('must be a number between 0 and 1');
        return value;
      },
    }),
  },
  server: {
    databaseUrl: text('DATABASE_URL', {
      description: 'Postgres connection string',
      defaultText: 'unset: SQLite at <home>/cairn.db',
      secret: true,
    }),
    host: text('HOST', {
      description:
        'Interface the HTTP services listen on (0.0.0.0 to accept remote connections: turn sign-in on first)',
      default: '127.0.0.1',
    }),
    webUiOrigin: text('WEB_UI_ORIGIN', {
      description:
        'The other origin whose pages may use the API (CORS and state changes); * for every origin (the spec default, unsafe without sign-in)',
      defaultText: "unset: the service's own pages only",
    }),
    allowedHosts: list('ALLOWED_HOSTS', {
      description:
        'Host names the services answer to besides localhost, IP addresses, the machine name and DOMAIN (refused with 403 otherwise, against DNS rebinding); * for any',
      lowercase: true,
    }),
    validateResponses: flag('CAIRN_VALIDATE_RESPONSES', {
      default: false,
      description:
        'true checks every JSON answer against its OpenAPI response schema; a mismatch is a 500 whose log names the fields (the test suite turns it on)',
    }),
    trustProxy: flag('TRUST_PROXY', {
      default: false,
      description:
        'true when a reverse proxy in front sets X-Forwarded-For and X-Forwarded-Proto: sign-in limits count per forwarded client address, and session cookies are Secure under https',
    }),
    metricsPort: integer('METRICS_PORT', {
      ...PORT_RANGE,
      description:
        'A port of its own for GET /metrics, open without sign-in (on HOST); the way to scrape `cairn worker` processes',
      defaultText: 'unset: /metrics on the core port only',
    }),
    webUiDev: flag('WEB_UI_DEV', {
      description: 'When true, the core server does not serve the static web UI',
      default: false,
    }),
  },
  cleanup: {
    staleThresholdDays: integer('STALE_THRESHOLD_DAYS', {
      min: 1,
      default: 14,
      description: 'Days before an inactive worktree is stale',
    }),
    maxWorktreesPerCodebase: integer('MAX_WORKTREES_PER_CODEBASE', {
      min: 1,
      default: 25,
      description: 'Worktrees per codebase before auto-cleanup',
    }),
    intervalHours: integer('CLEANUP_INTERVAL_HOURS', {
      min: 1,
      default: 6,
      description: 'Period of the background cleanup, in hours',
    }),
  },
  deployment: {
    data: text('CAIRN_DATA', {
      description: 'Host path for data in a container deployment',
      defaultText: 'container-managed volume',
    }),
    domain: text('DOMAIN', { description: 'Public domain for a reverse proxy with automatic TLS' }),
    proxyBasicAuth: text('PROXY_BASIC_AUTH', {
      description: 'Reverse-proxy basic-auth directive protecting the UI and API',
      defaultText: 'disabled',
      secret: true,
    }),
    authUsername: text('AUTH_USERNAME', {
      description: 'Username for form-based auth',
      // It travels in headers (the forward-auth answer), which hold visible ASCII only.
      pattern: /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/,
      patternText: 'visible ASCII characters (inner spaces allowed), at most 255',
    }),
    authPasswordHash: text('AUTH_PASSWORD_HASH', {
      description: 'Password hash for form-based auth',
      secret: true,
    }),
    cookieSecret: text('COOKIE_SECRET', {
      description: 'Secret for auth session cookies (64 hexadecimal characters)',
      pattern: /^[0-9a-fA-F]{64}$/,
      patternText: '64 hexadecimal characters',
      secret: true,
    }),
    apiToken: text('CAIRN_API_TOKEN', {
      description:
        'Bearer token API clients send (Authorization: Bearer ...); set, the API refuses requests without it or a signed-in session',
      pattern: /^[\x21-\x7e]{32,}$/,
      patternText: 'at least 32 printable characters without spaces (`cairn auth new-secret` prints one)',
      secret: true,
    }),
    authServicePort: integer('AUTH_SERVICE_PORT', {
      ...PORT_RANGE,
      default: 9000,
      description: 'Port of the forward-auth service a reverse proxy asks (`cairn auth serve`)',
    }),
    cookieMaxAge: integer('COOKIE_MAX_AGE', {
      min: 1,
      default: 86400,
      description: 'Auth cookie lifetime in seconds',
    }),
  },
};
