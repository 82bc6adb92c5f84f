import { randomBytes } from 'node:crypto';
import { createContext } from '../boot/context.js';
import { Lifecycle } from '../boot/lifecycle.js';
import { passwordHashProblem } from '../../config/sign-in-settings.js';
import { hashPassword } from '../../infra/crypto/password-hash.js';

/** Reads a line from the terminal without showing it; Ctrl-C aborts. */
function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}

async function readPiped(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  // One trailing newline is the end of the line, not part of the password.
  return text.replace(/\r?\n$/, '');
}

async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readPiped();
  const first = await promptHidden('Password: ');
  const again = await promptHidden('Again: ');
  if (first !== again) throw new Error('the two passwords differ');
  return first;
}

/**
 * `cairn auth hash-password`: prints an argon2id hash for AUTH_PASSWORD_HASH. The password is
 * asked twice on a terminal (not echoed), or read from standard input when piped.
 */
export async function runHashPassword(): Promise<number> {
  let password: string;
  try {
    password = await readNewPassword();
  } catch (error) {
    console.error(`[cairn] ${(error as Error).message}`);
    return 1;
  }
  if (password.length === 0) {
    console.error('[cairn] the password is empty');
    return 2;
  }
  if (password.length > 1024) {
    console.error('[cairn] the password is over 1024 characters, which sign-in does not accept');
    return 2;
  }
  const hash = await hashPassword(password);
  const problem = passwordHashProblem(hash);
  if (problem) throw new Error(`the new hash is not usable: ${problem}`);
  console.log(hash);
  return 0;
}

/** `cairn auth new-secret`: 32 random bytes as 64 hex characters, for COOKIE_SECRET or CAIRN_API_TOKEN. */
export function runNewSecret(): number {
  console.log(randomBytes(32).toString('hex'));
  return 0;
}

/**
 * `cairn auth serve`: the forward-auth service on AUTH_SERVICE_PORT, for a reverse proxy that
 * asks before passing each request on. Needs the same database and sign-in settings as the API.
 */
export async function runAuthServe(): Promise<void> {
  const context = createContext();
  if (context.signIn.mode === 'open') {
    console.error(
      '[cairn] sign-in is not set up (AUTH_USERNAME, AUTH_PASSWORD_HASH and COOKIE_SECRET, or CAIRN_API_TOKEN): there is nothing to check',
    );
    process.exit(2);
  }
  const lifecycle = new Lifecycle(context.logger);
  lifecycle.stopOnSignals();
  try {
    const [{ openMigratedDatabase }, { serveHttp, allowedHostNames }, { createForwardAuthApp }, { SignIn }] =
      await Promise.all([
        import('../boot/database.js'),
        import('../boot/http-server.js'),
        import('../../api/auth/forward-auth-app.js'),
        import('../../services/auth/sign-in.js'),
      ]);
    const db = await openMigratedDatabase(context);
    lifecycle.add('database', () => db.close());
    const app = createForwardAuthApp({
      signIn: new SignIn(db.knex, context.signIn),
      version: context.pkg.version,
      logger: context.logger,
      allowedHosts: allowedHostNames(context.environment),
    });
    const where = {
      host: context.environment.server.host,
      port: context.environment.deployment.authServicePort,
    };
    const service = await serveHttp('forward-auth', app.callback(), where, lifecycle);
    context.logger.info(
      { event: 'http.listening', service: 'forward-auth', port: service.port },
      'forward-auth ready',
    );
    console.log(`[cairn] forward-auth service on ${service.url}/verify (sign-in: ${context.signIn.mode})`);
  } catch (error) {
    console.error(`[cairn] could not start: ${(error as Error).message}`);
    await lifecycle.stop('start failed');
    process.exit(1);
  }
}
