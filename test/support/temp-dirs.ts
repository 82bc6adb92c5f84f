import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory removed by the returned cleanup. */
export function makeTempDir(prefix = 'cairn-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temporary CAIRN_HOME, so a test never touches the developer's ~/.cairn. */
export function makeTempHome(): { home: string; cleanup(): void } {
  const dir = makeTempDir('cairn-home-');
  return { home: dir.path, cleanup: dir.cleanup };
}
