import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/package-root.js';

export { PACKAGE_ROOT };

export interface PackageInfo {
  name: string;
  version: string;
  /** Where releases are published; empty when the package names no repository. */
  releasesUrl: string;
  /** Running from a git checkout (not an installed release). */
  isSourceBuild: boolean;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    repository?: string | { url?: string };
  };
  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  const base = repository?.replace(/^git\+/, '').replace(/\.git$/, '');
  cached = {
    name: manifest.name,
    version: manifest.version,
    releasesUrl: base ? `${base}/releases` : '',
    isSourceBuild: existsSync(join(PACKAGE_ROOT, '.git')),
  };
  return cached;
}
