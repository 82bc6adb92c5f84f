import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Environment } from '../../config/environment.js';
import { AssistantError } from './types.js';

export interface CodexAuth {
  /** `tokens`: Cairn's CODEX_* tokens in a CODEX_HOME of its own; `global`: the user's codex login. */
  mode: 'tokens' | 'global';
  /** Variables for the subprocess (CODEX_HOME in tokens mode). */
  env: Record<string, string>;
  secrets: string[];
}

const REQUIRED = [
  ['CODEX_ID_TOKEN', 'idToken'],
  ['CODEX_ACCESS_TOKEN', 'accessToken'],
  ['CODEX_REFRESH_TOKEN', 'refreshToken'],
] as const;

export function codexHomeDir(home: string): string {
  return path.join(home, 'codex');
}

/**
 * The codex CLI reads its login from `$CODEX_HOME/auth.json`. When CODEX_* tokens are set, Cairn
 * writes them there (0600) under its own home. The CLI refreshes and rewrites that file itself,
 * so it is rewritten only when the tokens in the environment change: writing stale tokens over
 * refreshed ones would log Codex out.
 */
export async function prepareCodexAuth(codex: Environment['codex'], home: string): Promise<CodexAuth> {
  const given = REQUIRED.filter(([, key]) => codex[key]);
  if (given.length === 0) return { mode: 'global', env: {}, secrets: [] };
  if (given.length < REQUIRED.length) {
    const missing = REQUIRED.filter(([, key]) => !codex[key]).map(([name]) => name);
    throw new AssistantError(
      'auth_missing',
      `Codex tokens are incomplete: ${missing.join(', ')} missing. Set all of CODEX_ID_TOKEN, ` +
        'CODEX_ACCESS_TOKEN and CODEX_REFRESH_TOKEN, or none to use the login of the codex CLI.',
    );
  }
  const dir = codexHomeDir(home);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tokens = {
    id_token: codex.idToken as string,
    access_token: codex.accessToken as string,
    refresh_token: codex.refreshToken as string,
    account_id: codex.accountId ?? null,
  };
  const fingerprint = createHash('sha256').update(JSON.stringify(tokens)).digest('hex');
  const fingerprintFile = path.join(dir, 'auth.source-sha256');
  const previous = await readFile(fingerprintFile, 'utf8').catch(() => '');
  if (previous !== fingerprint) {
    const authFile = path.join(dir, 'auth.json');
    const auth = {
      auth_mode: 'chatgpt',
      OPENAI_API_KEY: null,
      tokens,
      last_refresh: new Date().toISOString(),
    };
    await writeFile(authFile, `${JSON.stringify(auth, null, 2)}\n`, { mode: 0o600 });
    await chmod(authFile, 0o600); // mode applies to new files only
    await writeFile(fingerprintFile, fingerprint, { mode: 0o600 });
  }
  return {
    mode: 'tokens',
    env: { CODEX_HOME: dir },
    secrets: [tokens.id_token, tokens.access_token, tokens.refresh_token],
  };
}
