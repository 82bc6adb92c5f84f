// The npm registry reachable here lacks some platform-specific optional packages (for example
// @swc/core-darwin-arm64). `npm install` then leaves them out of package-lock.json and `npm ci`
// refuses the lock as out of sync. This adds the missing optional entries with their os/cpu,
// so npm ci skips them on other platforms. Run it after `npm install`: npm run lockfile
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix', 'netbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((candidate) => parts.includes(candidate));
  const cpu = CPU.find(
    (candidate) => parts.includes(candidate) || (candidate === 'arm' && parts.includes('gnueabihf')),
  );
  return os && cpu ? { os, cpu } : undefined;
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const added = [];
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depKey = `node_modules/${dep}`;
    const nestedKey = `${key}/node_modules/${dep}`;
    if (lock.packages[depKey] || lock.packages[nestedKey]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[depKey] = { version, cpu: [platform.cpu], optional: true, os: [platform.os] };
    added.push(`${dep}@${version}`);
  }
}
const [root, ...rest] = Object.entries(lock.packages);
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added to package-lock.json: ${added.join(', ')}` : 'package-lock.json already complete',
);
