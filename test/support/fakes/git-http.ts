/**
 * Git's smart HTTP protocol for the fake code hosts, served by git itself (`git http-backend`, the
 * CGI program real servers put behind their web server) from bare repositories in a temporary
 * folder. Repositories are private, as a token-authenticated clone sees them: a request without
 * the token's Basic credentials is answered 401 with a challenge, one for a repository the token
 * cannot read 404 (as GitHub and GitLab answer, not to reveal it exists).
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { git } from '../git-repos.js';
import { makeTempDir } from '../temp-dirs.js';

/** `/<path>.git/info/refs` and the service endpoints: what a clone and a fetch ask for. */
const GIT_PATH = /^\/(.+)\.git\/(info\/refs|git-upload-pack|git-receive-pack|HEAD)$/;

export interface GitRequestOutcome {
  repositoryPath: string;
  status: number;
}

export class FakeGitRepositories {
  private readonly root = makeTempDir('cairn-fake-host-git-');
  private readonly hosted = new Set<string>();
  /** Repositories whose content the token may not read (the API may still answer for them). */
  readonly unreadable = new Set<string>();
  /** Further tokens that read and write every hosted repository (a GitHub App's live installation tokens). */
  readonly otherTokens = new Set<string>();

  constructor(
    /** The user name the platform expects with the token: `x-access-token` (GitHub), `oauth2` (GitLab). */
    private readonly tokenUser: string,
    private readonly token: string,
    private readonly realm: string,
  ) {}

  /** Hosts a bare clone of `source` as `path` (`owner/repo`, `group/sub/project`); answers its folder. */
  host(path: string, source: string): string {
    const bare = this.bareOf(path);
    git(this.root.path, 'clone', '--quiet', '--bare', source, bare);
    this.hosted.add(path);
    return bare;
  }

  /** Sets a ref of a hosted repository (refs/pull/7/head) to a commit of `from`, pushed as a platform does. */
  setRef(path: string, ref: string, from: string, commit = 'HEAD'): string {
    git(from, 'push', '--quiet', '--force', this.bareOf(path), `${commit}:${ref}`);
    return git(this.bareOf(path), 'rev-parse', ref);
  }

  /** Whether a hosted repository has the branch (pushed to it, or there from the start). */
  hasBranch(path: string, branch: string): boolean {
    if (!this.hosted.has(path)) return false;
    try {
      git(this.bareOf(path), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether a hosted repository has the commit (on any ref). */
  hasCommit(path: string, sha: string): boolean {
    if (!this.hosted.has(path) || !/^[0-9a-f]{40}$/.test(sha)) return false;
    try {
      git(this.bareOf(path), 'rev-parse', '--verify', '--quiet', `${sha}^{commit}`);
      return true;
    } catch {
      return false;
    }
  }

  /** The branches of a hosted repository whose history holds the commit. */
  branchesContaining(path: string, sha: string): string[] {
    const listed = git(
      this.bareOf(path),
      'for-each-ref',
      '--contains',
      sha,
      '--format=%(refname:short)',
      'refs/heads/',
    );
    return listed ? listed.split('\n') : [];
  }

  bareOf(path: string): string {
    return join(this.root.path, `${path}.git`);
  }

  cleanup(): void {
    this.root.cleanup();
  }

  /** Whether the request is git's: then it is answered here. */
  matches(path: string): boolean {
    return GIT_PATH.test(path);
  }

  async serve(request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<GitRequestOutcome> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const match = GIT_PATH.exec(decodeURIComponent(url.pathname))!;
    const repositoryPath = match[1]!;
    if (!this.hasToken(request.headers.authorization)) {
      response.writeHead(401, { 'www-authenticate': `Basic realm="${this.realm}"` });
      response.end('Authentication required\n');
      return { repositoryPath, status: 401 };
    }
    if (!this.hosted.has(repositoryPath) || this.unreadable.has(repositoryPath)) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Repository not found.\n');
      return { repositoryPath, status: 404 };
    }
    const status = await this.cgi(request, response, url, body);
    return { repositoryPath, status };
  }

  private hasToken(authorization: string | undefined): boolean {
    if (!authorization?.startsWith('Basic ')) return false;
    const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8');
    if (decoded === `${this.tokenUser}:${this.token}`) return true;
    const [user, token] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
    return user === this.tokenUser && this.otherTokens.has(token);
  }

  /** Runs git http-backend for one request and relays its CGI answer. */
  private cgi(request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer): Promise<number> {
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: this.root.path,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        CONTENT_LENGTH: String(body.length),
        HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
        HTTP_GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
        REMOTE_USER: this.tokenUser,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    // git may answer (and exit) without reading a body it has no use for: its closed pipe is no error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(body);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', () => {
        const output = Buffer.concat(chunks);
        const end = output.indexOf('\r\n\r\n');
        const split = end === -1 ? output.indexOf('\n\n') : end;
        const headerText = output.subarray(0, split).toString('utf8');
        const rest = output.subarray(split + (end === -1 ? 2 : 4));
        let status = 200;
        const headers: Record<string, string> = {};
        for (const line of headerText.split(/\r?\n/)) {
          const colon = line.indexOf(':');
          if (colon === -1) continue;
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (name === 'status') status = Number(value.split(' ')[0]);
          else headers[name] = value;
        }
        response.writeHead(status, headers);
        response.end(rest);
        resolve(status);
      });
    });
  }
}
