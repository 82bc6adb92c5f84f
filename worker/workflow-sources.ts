import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** What the workflow bundle is made of, as far as its cache key is concerned. */
export interface WorkflowSources {
  /** Absolute paths of the source files reached from the entry, the entry first, then sorted. */
  files: string[];
  /** Packages imported by those files (bare specifiers reduced to the package name), sorted. */
  packages: string[];
}

// `import … from 'x'`, `export … from 'x'`, `import 'x'`, multi-line clauses included. Group 1 is
// set for `import type` / `export type` statements: the bundler (swc) erases them, so they reach
// nothing at run time, and following them would pull activities/, services/ and db/ into the key,
// which then would change on nearly every edit. An inline `{ type X }` specifier is followed all
// the same: the statement may carry values too, and a wrong extra file costs only a rebuild.
const STATIC_IMPORT = /\b(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"\n]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function runtimeSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  for (const [, typeOnly, specifier] of source.matchAll(STATIC_IMPORT)) {
    if (!typeOnly && specifier) specifiers.push(specifier);
  }
  for (const [, specifier] of source.matchAll(DYNAMIC_IMPORT)) if (specifier) specifiers.push(specifier);
  return specifiers;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** The file a relative specifier names, resolved as the Temporal bundler does (`.js` may mean `.ts`). */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = base.endsWith('.js')
    ? [`${base.slice(0, -3)}.ts`, base]
    : [base, `${base}.ts`, `${base}.js`, join(base, 'index.ts'), join(base, 'index.js')];
  return candidates.find(isFile);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Follows the relative imports from `entry` (a workflows index) through every file they reach.
 * A specifier that resolves to no file (say, inside a comment) is skipped: the bundler would
 * fail on a real one anyway.
 */
export function workflowSources(entry: string): WorkflowSources {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) {
        packages.add(packageName(specifier));
        continue;
      }
      const target = resolveRelative(file, specifier);
      if (target) pending.push(target);
    }
  }
  const [first, ...rest] = files;
  return { files: [first!, ...rest.sort()], packages: [...packages].sort() };
}

/** The installed version of `name` as Node would find it from `fromDir`, or undefined. */
export function installedVersion(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest))
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return undefined;
  }
}
