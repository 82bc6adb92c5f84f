/**
 * What a registration input says about the repository: a stable key (so registering the same
 * repository twice finds the first registration) and the owner/name used for the managed
 * folder `<workspaces>/<owner>/<name>/`. Pure: the caller resolves local paths first.
 */
export interface RepositoryIdentity {
  /** `host/owner/name` for remotes, `file:<abs path>` for local repositories. */
  key: string;
  owner: string;
  name: string;
  kind: 'remote' | 'local';
  /** The URL with any user name or password removed: what may be stored and shown. */
  displayUrl?: string;
  host?: string;
}

export class RepositoryUrlError extends Error {
  override name = 'RepositoryUrlError';
}

const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/;
const SAFE_SEGMENT = /[^A-Za-z0-9._-]+/g;

function stripGitSuffix(segment: string): string {
  return segment.replace(/\.git$/i, '');
}

function safeSegment(segment: string): string {
  const cleaned = segment.replace(SAFE_SEGMENT, '-').replace(/^[.-]+|[.-]+$/g, '');
  return cleaned || 'repo';
}

function remoteIdentity(host: string, path: string, displayUrl: string): RepositoryIdentity {
  let segments: string[];
  try {
    segments = path
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s));
  } catch {
    throw new RepositoryUrlError(`the URL ${displayUrl} has a malformed %-escape`);
  }
  if (segments.length === 0) throw new RepositoryUrlError(`the URL ${displayUrl} names no repository`);
  const name = stripGitSuffix(segments[segments.length - 1]!);
  // GitLab subgroups (group/sub/repo) become one owner folder: group-sub.
  const owner = segments.slice(0, -1).join('-') || host;
  const key = `${host.toLowerCase()}/${[...segments.slice(0, -1), name].join('/').toLowerCase()}`;
  return {
    key,
    owner: safeSegment(owner),
    name: safeSegment(name),
    kind: 'remote',
    displayUrl,
    host: host.toLowerCase(),
  };
}

/** A local repository (a path or a file:// URL), by its absolute, symlink-resolved path. */
export function localIdentity(absolutePath: string, displayUrl?: string): RepositoryIdentity {
  const trimmed = absolutePath.replace(/\/+$/, '') || '/';
  const base = trimmed.split('/').pop() || 'repo';
  return {
    key: `file:${trimmed}`,
    owner: 'local',
    name: safeSegment(stripGitSuffix(base)),
    kind: 'local',
    displayUrl,
  };
}

/** Whether a registration URL points at the local file system (file:// or an absolute path). */
export function isLocalUrl(url: string): boolean {
  return url.startsWith('file://') || url.startsWith('/');
}

/**
 * Identity of an https, http, ssh or scp-like (`git@host:owner/repo.git`) URL. Local URLs
 * (`file://`, absolute paths) need their path resolved first: see localIdentity.
 */
export function remoteRepositoryIdentity(url: string): RepositoryIdentity {
  const trimmed = url.trim();
  // A leading '-' would reach git as an option; '::' selects a remote helper (ext::, fd::).
  if (trimmed.startsWith('-') || trimmed.includes('::') || [...trimmed].some((c) => c.charCodeAt(0) < 0x20)) {
    throw new RepositoryUrlError(
      'unsupported repository URL: it must not start with "-" or contain "::" or control characters',
    );
  }
  if (/^(https?|ssh|git):\/\//i.test(trimmed)) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new RepositoryUrlError(`${redactUrl(trimmed)} is not a valid URL`);
    }
    if (!parsed.hostname) throw new RepositoryUrlError(`${redactUrl(trimmed)} has no host`);
    return remoteIdentity(parsed.hostname, parsed.pathname, redactUrl(trimmed));
  }
  const scp = SCP_LIKE.exec(trimmed);
  if (scp) return remoteIdentity(scp[1]!, scp[2]!, trimmed);
  throw new RepositoryUrlError(
    `unsupported repository URL ${redactUrl(trimmed)}: use https://, ssh://, git@host:owner/repo, file:// or an absolute path`,
  );
}

// The userinfo of a URL ends at the LAST '@' before the path: passwords may contain '@'.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/\s]*@/gi;

/** Removes `user:password@` from a URL so it can be stored, logged and returned. */
export function redactUrl(url: string): string {
  return url.replace(URL_USERINFO, '$1');
}

/** Masks the `user:password@` of every URL in a message as `***@`, keeping the rest readable. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@');
}
