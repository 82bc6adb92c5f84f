import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** One file of the built page, as it is sent: the bytes and their precompressed forms. */
export interface WebFile {
  type: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  /** Under /assets/: the name carries a content hash, so it may be cached for good. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const COMPRESSED = ['.br', '.gz'];

/**
 * The built web page (dist/web, written by scripts/build.mjs), read once into memory: a few
 * hundred kilobytes. Undefined when it was never built; the core then serves its plain home page.
 */
export function readWebFiles(dir: string): Map<string, WebFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, WebFile>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const extension = extname(path);
    if (COMPRESSED.includes(extension) || entry.name.startsWith('.')) continue;
    const urlPath = `/${relative(dir, path).split(sep).join('/')}`;
    const read = (suffix: string) => (existsSync(path + suffix) ? readFileSync(path + suffix) : undefined);
    files.set(urlPath, {
      type: TYPES[extension] ?? 'application/octet-stream',
      identity: readFileSync(path),
      br: read('.br'),
      gzip: read('.gz'),
      immutable: urlPath.startsWith('/assets/'),
    });
  }
  return files;
}
