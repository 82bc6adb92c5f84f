import { Connection } from '@temporalio/client';
import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CairnContext } from '../boot/context.js';
import { openDatabase } from '../../db/connection.js';
import { pendingMigrations } from '../../db/migrate.js';
import { findGo, findTemporalCli } from '../../worker/temporal/find-cli.js';
import { fail, ok, warn, type CheckResult } from './check.js';
import { versionOf } from './executables.js';
import { findOnPath, isExecutableFile } from '../../config/executables.js';
import { CLAUDE_AS_ROOT_FIX, claudeRefusesRoot } from '../../infra/assistants/claude-root-guard.js';

export function checkConfig(context: CairnContext): CheckResult {
  const { problems, sources } = context.config;
  if (problems.length === 0) {
    const files = [sources.globalFile].filter(Boolean).join(', ') || 'no config file (defaults)';
    return ok('config', files);
  }
  const lines = problems.map((p) => `${p.file}${p.key ? ` ${p.key}` : ''}: ${p.message}`);
  return warn('config', lines.join('; '), 'fix or remove the keys named; they are ignored until then');
}

/** The home, or where it will be made: the nearest folder that exists on its path. */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

export function checkHome(context: CairnContext): CheckResult {
  const { home } = context.layout;
  const existing = nearestExisting(home);
  try {
    accessSync(existing, constants.W_OK);
    return ok('home', existing === home ? home : `${home} (not created yet: cairn start creates it)`);
  } catch {
    return fail('home', `${existing} is not writable`, 'set CAIRN_HOME to a writable directory');
  }
}

export async function checkDatabase(context: CairnContext): Promise<CheckResult> {
  const url = context.environment.server.databaseUrl;
  // Opening a SQLite file that does not exist would create it: a check only looks.
  if (!url && !existsSync(context.layout.databaseFile))
    return ok('database', `sqlite ${context.layout.databaseFile} (not created yet: cairn start creates it)`);
  const db = openDatabase({ databaseUrl: url, sqliteFile: context.layout.databaseFile });
  try {
    await db.knex.raw('select 1');
    const pending = await pendingMigrations(db.knex);
    const where = `${db.dialect} ${db.location}`;
    if (pending.length > 0) {
      return warn(
        'database',
        `${where}: ${pending.length} pending migration(s)`,
        'run `cairn migrate` (cairn start does it)',
      );
    }
    return ok('database', where);
  } catch (error) {
    const fix = url
      ? 'check DATABASE_URL (host, port, database, credentials) and that Postgres is running'
      : `check that ${context.layout.databaseFile} is writable`;
    return fail('database', `${db.dialect} ${db.location}: ${(error as Error).message}`, fix);
  } finally {
    await db.close();
  }
}

export async function checkTemporal(context: CairnContext): Promise<CheckResult> {
  const { address, namespace } = context.environment.temporal;
  if (address) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 5000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return ok('temporal', `${address}, namespace ${namespace}`);
      } finally {
        await connection.close();
      }
    } catch (error) {
      return fail(
        'temporal',
        `${address}: ${(error as Error).message}`,
        `start the Temporal server at TEMPORAL_ADDRESS and create namespace ${namespace}, or unset TEMPORAL_ADDRESS to use the embedded one`,
      );
    }
  }
  try {
    const cli = findTemporalCli({
      explicitPath: context.environment.temporal.cliPath,
      pathVariable: process.env.PATH,
      toolCacheDir: context.environment.general.toolCache,
    });
    if (cli) return ok('temporal', `embedded dev server, CLI ${cli.path} (${cli.source})`);
  } catch (error) {
    return fail(
      'temporal',
      (error as Error).message,
      'point TEMPORAL_CLI_PATH at the `temporal` executable or unset it',
    );
  }
  const go = findGo(process.env.PATH);
  if (go)
    return warn(
      'temporal',
      'no Temporal CLI yet',
      'run `cairn temporal-cli` to build it now (minutes), or let `cairn start` do it',
    );
  return warn(
    'temporal',
    'no Temporal CLI and no Go toolchain',
    'install the Temporal CLI or Go, set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS; otherwise cairn start downloads the server through the SDK (needs internet)',
  );
}

export async function checkGit(): Promise<CheckResult> {
  const version = await versionOf('git');
  if (!version) return fail('git', 'git not found', 'install git 2.5 or newer (worktrees)');
  const [major = 0, minor = 0] = (version.match(/(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (major < 2 || (major === 2 && minor < 5))
    return fail('git', version, 'upgrade git to 2.5 or newer (worktrees)');
  return ok('git', version);
}

function assistantExecutable(name: string, configured: string | undefined, variable: string): CheckResult {
  if (configured) {
    return isExecutableFile(configured)
      ? ok(name, configured)
      : fail(name, `${variable}=${configured} is not an executable file`, `fix ${variable} or unset it`);
  }
  const found = findOnPath(name, process.env.PATH);
  if (found) return ok(name, found);
  return warn(
    name,
    `no \`${name}\` executable on PATH`,
    `install it or set ${variable}; needed only to use ${name}`,
  );
}

/** Claude Code refuses to run as root unless a sandbox is declared (AMENDMENTS A.10). */
export function checkClaudeAsRoot(env: NodeJS.ProcessEnv, uid?: number): CheckResult {
  if (claudeRefusesRoot(env, uid ?? process.getuid?.()))
    return warn(
      'claude as root',
      'Cairn runs as root: Claude Code refuses every Claude turn',
      CLAUDE_AS_ROOT_FIX,
    );
  const declared = env.IS_SANDBOX === '1' || env.CLAUDE_CODE_BUBBLEWRAP === '1';
  return ok('claude as root', declared ? 'a sandbox is declared (IS_SANDBOX)' : 'not running as root');
}

export function checkAssistants(context: CairnContext): CheckResult[] {
  const { claude, codex } = context.environment;
  const { assistants } = context.config.effective;
  const results = [
    assistantExecutable('claude', claude.binPath ?? assistants.claude.claudeBinaryPath, 'CLAUDE_BIN_PATH'),
    assistantExecutable('codex', codex.binPath ?? assistants.codex.codexBinaryPath, 'CODEX_BIN_PATH'),
  ];
  results.push(checkClaudeAsRoot(process.env));
  results.push(checkClaudeAuth(context.environment, process.env));
  return results;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether the API asks who is calling, and whether that suits where it listens. */
export function checkSignIn(context: CairnContext): CheckResult {
  const { mode, form, apiToken, trustProxy } = context.signIn;
  const { host } = context.environment.server;
  if (mode === 'open') {
    if (LOOPBACK_HOSTS.has(host)) return ok('sign-in', `off; the API listens on ${host} only`);
    return warn(
      'sign-in',
      `off, and the API listens on ${host}: anyone who reaches the port can run assistants`,
      'set AUTH_USERNAME, AUTH_PASSWORD_HASH and COOKIE_SECRET (or CAIRN_API_TOKEN), or put an authenticating proxy in front',
    );
  }
  const ways = [
    form ? `password sign-in for "${form.username}" (sessions of ${form.cookieMaxAgeSeconds} s)` : '',
    apiToken ? 'API token' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  if (form && context.environment.deployment.domain && !trustProxy)
    return warn(
      'sign-in',
      `${ways}; DOMAIN is set but TRUST_PROXY is not, so behind the https proxy the session cookie is not marked Secure and the sign-in limit counts the proxy's address`,
      'set TRUST_PROXY=true when Cairn is reached only through the proxy',
    );
  return ok('sign-in', ways);
}

/**
 * Which credential Claude turns will use, and whether it is there: a token or key (never shown),
 * or the login the claude CLI keeps in its config folder. Without either, every turn fails.
 */
export function checkClaudeAuth(
  environment: CairnContext['environment'],
  env: NodeJS.ProcessEnv,
): CheckResult {
  const { claude } = environment;
  if (claude.oauthToken) return ok('claude auth', 'CLAUDE_CODE_OAUTH_TOKEN');
  if (claude.apiKey || claude.anthropicApiKey) return ok('claude auth', 'API key');
  if (claude.useGlobalAuth === false)
    return fail(
      'claude auth',
      'CLAUDE_USE_GLOBAL_AUTH=false and no token',
      'set CLAUDE_CODE_OAUTH_TOKEN or CLAUDE_API_KEY',
    );
  // On macOS the login is in the keychain, which a file check cannot see.
  if (process.platform === 'darwin')
    return ok('claude auth', "the claude CLI's login (keychain, not checked)");
  // The claude CLI (the SDK's bundled one included) keeps its login here on Linux and in containers.
  const configDir = env.CLAUDE_CONFIG_DIR?.trim() || join(env.HOME?.trim() || homedir(), '.claude');
  const credentials = join(configDir, '.credentials.json');
  if (existsSync(credentials)) return ok('claude auth', `the claude CLI's login (${credentials})`);
  return warn(
    'claude auth',
    `no token or key is set, and the claude CLI has no login in ${configDir}: Claude turns will fail`,
    'run `claude` once and log in (as the user Cairn runs as), or set CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_API_KEY',
  );
}
