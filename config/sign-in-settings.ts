import { ConfigError, type ConfigIssue } from './errors.js';
import type { Environment } from './environment.js';

/**
 * Who may use the API and the page. `open`: anyone who reaches the port (the spec's default);
 * `token`: API clients with CAIRN_API_TOKEN; `form`: a signed-in browser session, or the token.
 */
export type SignInMode = 'open' | 'token' | 'form';

export interface FormSignIn {
  username: string;
  passwordHash: string;
  /** COOKIE_SECRET's 32 bytes. */
  cookieSecret: Buffer;
  cookieMaxAgeSeconds: number;
}

export interface SignInSettings {
  mode: SignInMode;
  form?: FormSignIn;
  apiToken?: string;
  /** Forwarded client addresses and protocol are believed (TRUST_PROXY). */
  trustProxy: boolean;
}

const FORM_VARIABLES = ['AUTH_USERNAME', 'AUTH_PASSWORD_HASH', 'COOKIE_SECRET'] as const;

// argon2id in PHC form, and bcrypt as htpasswd, Caddy and most libraries write it.
const ARGON2ID = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{16,}$/;
const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;

// Past these a single sign-in would take seconds or gigabytes: almost surely a typo.
const ARGON2_LIMITS = { memoryKiB: 262_144, passes: 16, lanes: 16 };
const BCRYPT_COSTS = { min: 4, max: 14 };

/** Why a password hash cannot be used, or undefined when it can. */
export function passwordHashProblem(hash: string): string | undefined {
  const argon = ARGON2ID.exec(hash);
  if (argon) {
    const [memory, passes, lanes] = argon.slice(1).map(Number) as [number, number, number];
    if (memory > ARGON2_LIMITS.memoryKiB || passes > ARGON2_LIMITS.passes || lanes > ARGON2_LIMITS.lanes)
      return `asks for more than ${ARGON2_LIMITS.memoryKiB} KiB, ${ARGON2_LIMITS.passes} passes or ${ARGON2_LIMITS.lanes} lanes per sign-in`;
    return undefined;
  }
  const bcrypt = BCRYPT.exec(hash);
  if (bcrypt) {
    const cost = Number(bcrypt[1]);
    if (cost < BCRYPT_COSTS.min || cost > BCRYPT_COSTS.max)
      return `has bcrypt cost ${cost}; use ${BCRYPT_COSTS.min} to ${BCRYPT_COSTS.max}`;
    return undefined;
  }
  return 'must be an argon2id hash ($argon2id$v=19$...) or a bcrypt hash ($2a$, $2b$ or $2y$); `cairn auth hash-password` prints one';
}

function formSignIn(deployment: Environment['deployment'], issues: ConfigIssue[]): FormSignIn | undefined {
  const values = [deployment.authUsername, deployment.authPasswordHash, deployment.cookieSecret];
  const set = values.filter((value) => value !== undefined).length;
  if (set === 0) return undefined;
  if (set < values.length) {
    // Half a configuration must not quietly leave the service open.
    const missing = FORM_VARIABLES.filter((_, index) => values[index] === undefined);
    for (const name of missing)
      issues.push({ name, message: `is required when any of ${FORM_VARIABLES.join(', ')} is set` });
    return undefined;
  }
  const problem = passwordHashProblem(deployment.authPasswordHash!);
  if (problem) {
    issues.push({ name: 'AUTH_PASSWORD_HASH', message: problem });
    return undefined;
  }
  return {
    username: deployment.authUsername!,
    passwordHash: deployment.authPasswordHash!,
    cookieSecret: Buffer.from(deployment.cookieSecret!, 'hex'),
    cookieMaxAgeSeconds: deployment.cookieMaxAge,
  };
}

/** Reads the sign-in variables; a partial or unusable form configuration is a ConfigError. */
export function readSignInSettings(environment: Environment): SignInSettings {
  const issues: ConfigIssue[] = [];
  const form = formSignIn(environment.deployment, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const apiToken = environment.deployment.apiToken;
  const mode: SignInMode = form ? 'form' : apiToken ? 'token' : 'open';
  return { mode, form, apiToken, trustProxy: environment.server.trustProxy };
}
