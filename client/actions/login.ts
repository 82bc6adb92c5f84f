import { createInterface } from 'node:readline/promises';
import { text } from 'node:stream/consumers';
import { ApiClient } from '../api-client.js';
import { ClientExit, EXIT } from '../exit-codes.js';
import { removeProfile, resolveServer, saveProfile } from '../server-profile.js';
import { terminal } from '../terminal.js';

interface SessionState {
  signInRequired: boolean;
  signedIn: boolean;
  user: string | null;
  via: string | null;
}

async function readToken(): Promise<string> {
  if (!process.stdin.isTTY) return (await text(process.stdin)).trim();
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return (
      await prompt.question('API token (CAIRN_API_TOKEN of the server; empty when it needs none): ')
    ).trim();
  } finally {
    prompt.close();
  }
}

/**
 * `cairn login <url>`: checks the server and the token, then saves both under a profile name in
 * ~/.cairn/credentials.json (mode 0600). The token comes from stdin (a pipe) or a prompt, never
 * from the command line, where other users of the machine could read it.
 */
export async function login(
  url: string,
  options: { profile?: string; default?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const term = terminal(env);
  const server = resolveServer({ ...env, CAIRN_API_TOKEN: '' }, { url });
  const token = await readToken();
  const api = new ApiClient({ ...server, token: token || undefined });
  const state = await api.get<SessionState>('/api/auth/session');
  if (state.signInRequired && !state.signedIn) {
    throw new ClientExit(`${server.url} needs a token and this one was not accepted`, EXIT.notAllowed);
  }
  const name = options.profile ?? 'default';
  const file = saveProfile(
    env,
    name,
    { url: server.url, ...(token ? { token } : {}) },
    options.default !== false,
  );
  term.out(
    `${server.url}: ${state.signInRequired ? `signed in as ${state.user ?? 'api-token'}` : 'no sign-in needed'}; saved as profile "${name}" in ${file}`,
  );
  return EXIT.ok;
}

export function logout(options: { profile?: string }, env: NodeJS.ProcessEnv = process.env): number {
  const name = options.profile ?? 'default';
  if (!removeProfile(env, name)) throw new ClientExit(`no profile named ${name}`, EXIT.usage);
  terminal(env).out(`removed profile "${name}"`);
  return EXIT.ok;
}
