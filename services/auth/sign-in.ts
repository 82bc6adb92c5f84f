import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { FormSignIn, SignInSettings } from '../../config/sign-in-settings.js';
import {
  deleteSignInSession,
  findLiveSignInSession,
  insertSignInSession,
  purgeSignInRecords,
  recentSignInAttempts,
  recordSignInAttempt,
} from '../../db/repositories/sign-in.js';
import { verifyPassword } from '../../infra/crypto/password-hash.js';
import { ServiceError } from '../service-error.js';

/** Who a request acts for: the signed-in user, or an API client holding the token. */
export interface Principal {
  name: string;
  via: 'session' | 'token';
}

export interface SessionPrincipal extends Principal {
  via: 'session';
  expiresAt: string;
}

export interface NewSession {
  /** What the browser keeps in its cookie: the session id and its signature. */
  cookieValue: string;
  username: string;
  expiresAt: string;
  maxAgeSeconds: number;
}

/** Sign-in tries per client address in a sliding minute; the next one is refused (429). */
export const SIGN_IN_ATTEMPTS = { limit: 5, windowMs: 60_000 } as const;

/** The name API clients are known by in logs and records. */
export const API_TOKEN_PRINCIPAL = 'api-token';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Equal in time that does not depend on where the two differ (nor on their lengths). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

const WRONG = () =>
  new ServiceError({
    kind: 'unauthenticated',
    code: 'sign_in_failed',
    detail: 'The username or password is wrong.',
  });

/**
 * The optional sign-in: password sign-in that opens a browser session, and the API token. A
 * session's cookie carries a random id and an HMAC of it under a key derived from COOKIE_SECRET,
 * the username and the password hash, so a forged cookie is refused without a database read, and
 * changing any of the three ends every session. The database keeps only a hash of each id.
 */
export class SignIn {
  private readonly sessionKey: Buffer | undefined;

  constructor(
    private readonly knex: Knex,
    readonly settings: SignInSettings,
    private readonly clock: () => number = Date.now,
  ) {
    const form = settings.form;
    this.sessionKey = form && sessionKeyOf(form);
  }

  /** Whether requests must show a session or the token. */
  get required(): boolean {
    return this.settings.mode !== 'open';
  }

  /** Whether a browser can sign in with the password. */
  get passwordSignIn(): boolean {
    return this.settings.form !== undefined;
  }

  /**
   * Checks a username and password and opens a session. A wrong username costs the same
   * password check as a wrong password and gets the same answer. The sixth try from one client
   * address within a minute is refused before any check.
   */
  async signIn(username: string, password: string, client: string): Promise<NewSession> {
    const form = this.settings.form;
    if (!form || !this.sessionKey) {
      throw ServiceError.notFound(
        'Password sign-in is not set up on this server (AUTH_USERNAME, AUTH_PASSWORD_HASH, COOKIE_SECRET).',
        'sign_in_not_configured',
      );
    }
    await this.countAttempt(client);
    const passwordMatches = await verifyPassword(password, form.passwordHash);
    if (!(sameSecret(username, form.username) && passwordMatches)) throw WRONG();

    const id = randomBytes(32).toString('base64url');
    const now = this.clock();
    const expiresAt = new Date(now + form.cookieMaxAgeSeconds * 1000).toISOString();
    await insertSignInSession(this.knex, {
      idHash: sha256(id).toString('hex'),
      username: form.username,
      createdAt: new Date(now).toISOString(),
      expiresAt,
    });
    return {
      cookieValue: `${id}.${this.signature(this.sessionKey, id)}`,
      username: form.username,
      expiresAt,
      maxAgeSeconds: form.cookieMaxAgeSeconds,
    };
  }

  /** The session a cookie value names, while it is genuine, live and of the configured user. */
  async sessionFor(cookieValue: string | undefined): Promise<SessionPrincipal | undefined> {
    const id = this.genuineId(cookieValue);
    const form = this.settings.form;
    if (id === undefined || !form) return undefined;
    const now = new Date(this.clock()).toISOString();
    const session = await findLiveSignInSession(this.knex, sha256(id).toString('hex'), now);
    if (!session || session.username !== form.username) return undefined;
    return { name: session.username, via: 'session', expiresAt: session.expiresAt };
  }

  /** Ends the session a cookie names, in every process at once; an unknown cookie is a no-op. */
  async signOut(cookieValue: string | undefined): Promise<void> {
    const id = this.genuineId(cookieValue);
    if (id !== undefined) await deleteSignInSession(this.knex, sha256(id).toString('hex'));
  }

  /** The API client a bearer token stands for, when it is CAIRN_API_TOKEN. */
  principalForToken(token: string): Principal | undefined {
    const expected = this.settings.apiToken;
    if (expected === undefined || !sameSecret(token, expected)) return undefined;
    return { name: API_TOKEN_PRINCIPAL, via: 'token' };
  }

  /**
   * Counts a try against its client's limit. A try refused by the limit is not counted, so one
   * that keeps trying cannot hold the address closed for good.
   */
  private async countAttempt(client: string): Promise<void> {
    const now = this.clock();
    const since = now - SIGN_IN_ATTEMPTS.windowMs;
    // The column holds 64 characters; an address is never longer.
    const key = client.slice(0, 64);
    await purgeSignInRecords(this.knex, new Date(now).toISOString(), new Date(since).toISOString());
    const recent = await recentSignInAttempts(this.knex, key, new Date(since).toISOString());
    if (recent.count < SIGN_IN_ATTEMPTS.limit || recent.oldest === undefined) {
      await recordSignInAttempt(this.knex, key, new Date(now).toISOString());
      return;
    }
    const freeAt = Date.parse(recent.oldest) + SIGN_IN_ATTEMPTS.windowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil((freeAt - now) / 1000));
    throw new ServiceError({
      kind: 'rate_limited',
      code: 'too_many_sign_in_attempts',
      detail: `Too many sign-in attempts from this address; try again in ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    });
  }

  private genuineId(cookieValue: string | undefined): string | undefined {
    if (!cookieValue || !this.sessionKey) return undefined;
    const [id, signature, extra] = cookieValue.split('.');
    if (!id || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(this.signature(this.sessionKey, id));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
  }

  private signature(key: Buffer, id: string): string {
    return createHmac('sha256', key).update(id).digest('base64url');
  }
}

function sessionKeyOf(form: FormSignIn): Buffer {
  return createHmac('sha256', form.cookieSecret)
    .update(`cairn-session\0${form.username}\0${form.passwordHash}`)
    .digest();
}
