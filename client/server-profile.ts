import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ClientExit, EXIT } from './exit-codes.js';

/** Which server a client command talks to, and with what token. */
export interface ServerProfile {
  url: string;
  token?: string;
  /** Where the address came from, for the "no server" line. */
  source: 'flag' | 'CAIRN_URL' | 'profile' | 'default';
}

interface SavedProfiles {
  default?: string;
  profiles: Record<string, { url: string; token?: string }>;
}

/** `~/.cairn/credentials.json` (under CAIRN_HOME when set): the servers `cairn login` saved. */
export function credentialsFile(env: NodeJS.ProcessEnv): string {
  const home = env.CAIRN_HOME?.trim()
    ? resolve(env.CAIRN_HOME.trim().replace(/^~(?=$|\/)/, homedir()))
    : join(homedir(), '.cairn');
  return join(home, 'credentials.json');
}

function readProfiles(file: string): SavedProfiles {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { profiles: {} };
  }
  try {
    const parsed = JSON.parse(text) as SavedProfiles;
    return { default: parsed.default, profiles: parsed.profiles ?? {} };
  } catch {
    throw new ClientExit(
      `${file} is not valid JSON: fix or delete it, then \`cairn login\` again`,
      EXIT.usage,
    );
  }
}

/** Saves a server under a profile name, readable by the user only (mode 0600). */
export function saveProfile(
  env: NodeJS.ProcessEnv,
  name: string,
  profile: { url: string; token?: string },
  makeDefault: boolean,
): string {
  const file = credentialsFile(env);
  const saved = readProfiles(file);
  saved.profiles[name] = profile;
  if (makeDefault || !saved.default) saved.default = name;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

/** Drops a profile; false when there was none of that name. */
export function removeProfile(env: NodeJS.ProcessEnv, name: string): boolean {
  const file = credentialsFile(env);
  const saved = readProfiles(file);
  if (!saved.profiles[name]) return false;
  delete saved.profiles[name];
  if (saved.default === name) saved.default = Object.keys(saved.profiles)[0];
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return true;
}

export function listProfiles(env: NodeJS.ProcessEnv): SavedProfiles {
  return readProfiles(credentialsFile(env));
}

function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ClientExit(`"${url}" is not a URL (for example http://127.0.0.1:3090)`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ClientExit(`"${url}" is not an http or https URL`, EXIT.usage);
  }
  return parsed.href.replace(/\/+$/, '');
}

/**
 * The server: --url, else CAIRN_URL, else the chosen (or default) saved profile, else this
 * machine's server on PORT (3090). The token: CAIRN_API_TOKEN, else the profile's.
 */
export function resolveServer(
  env: NodeJS.ProcessEnv,
  options: { url?: string; profile?: string },
): ServerProfile {
  const envToken = env.CAIRN_API_TOKEN?.trim() || undefined;
  const saved = readProfiles(credentialsFile(env));
  if (options.profile !== undefined && !saved.profiles[options.profile]) {
    throw new ClientExit(
      `no profile named ${options.profile}: \`cairn login <url> --profile ${options.profile}\``,
      EXIT.usage,
    );
  }
  const profile = saved.profiles[options.profile ?? saved.default ?? ''];
  const tokenFor = (url: string) => envToken ?? (profile && profile.url === url ? profile.token : undefined);
  if (options.url) {
    const url = normalizeUrl(options.url);
    return { url, token: tokenFor(url), source: 'flag' };
  }
  if (env.CAIRN_URL?.trim() && options.profile === undefined) {
    const url = normalizeUrl(env.CAIRN_URL.trim());
    return { url, token: tokenFor(url), source: 'CAIRN_URL' };
  }
  if (profile) return { url: normalizeUrl(profile.url), token: envToken ?? profile.token, source: 'profile' };
  const port = Number(env.PORT) > 0 ? Number(env.PORT) : 3090;
  return { url: `http://127.0.0.1:${port}`, token: envToken, source: 'default' };
}
