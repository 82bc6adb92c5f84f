// Installs dependencies when they are missing or out of date, so a fresh clone needs only
// `npm start` or `npm test`. Uses Node built-ins only: it runs before anything is installed.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function staleDependency() {
  const manifest = readJson(join(root, 'package.json'));
  const lock = readJson(join(root, 'package-lock.json'));
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  for (const name of names) {
    const installed = readJson(join(root, 'node_modules', name, 'package.json'));
    const locked = lock?.packages?.[`node_modules/${name}`]?.version;
    if (!installed || (locked && installed.version !== locked)) return name;
  }
  const sqliteAddon = join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  if (!existsSync(sqliteAddon)) return 'better-sqlite3 (native addon not built)';
  return undefined;
}

const stale = staleDependency();
if (stale) {
  console.log(
    `[cairn] installing dependencies (${stale} is missing or out of date); this takes a minute or two...`,
  );
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
