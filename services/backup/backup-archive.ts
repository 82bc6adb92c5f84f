import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import type { HomeLayout } from '../../config/paths.js';
import { backupSqliteFile, sqliteFileProblem } from '../../db/sqlite-files.js';
import { liveHomeUsers } from '../../infra/files/home-users.js';
import { ServiceError } from '../service-error.js';
import {
  BACKUP_FILES,
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  backupCorrupt,
  checkFiles,
  DATABASE_FILES,
  describeFile,
  MANIFEST_NAME,
  parseManifest,
  type BackupFileName,
  type BackupManifest,
} from './backup-manifest.js';

export interface BackupSource {
  layout: HomeLayout;
  /** DATABASE_URL: Cairn's records are in Postgres, which pg_dump backs up. */
  databaseUrl?: string;
  /** TEMPORAL_ADDRESS: the histories are in an external Temporal cluster. */
  temporalAddress?: string;
  cairnVersion: string;
}

/** Where each file of the archive lives in a home. */
function homeFile(layout: HomeLayout, name: BackupFileName): string {
  const files: Record<BackupFileName, string> = {
    'cairn.db': layout.databaseFile,
    'temporal.db': layout.temporalDatabaseFile,
    'config.yaml': layout.configFile,
    '.env': layout.envFile,
  };
  return files[name];
}

/**
 * `cairn backup`: a gzipped tar of the embedded database, the embedded Temporal server's database
 * and the home's config, with a manifest of checksums first. The databases are copied with
 * SQLite's online backup API while the service runs, Cairn's first and Temporal's second: what was
 * acknowledged before the backup started is in both; work started during it may be in Temporal's
 * copy without its record, and then fails at its first step after a restore. The file is written
 * under another name and renamed when complete, mode 0600 (the .env holds tokens).
 */
export async function createBackup(source: BackupSource, file: string): Promise<BackupManifest> {
  const target = path.resolve(file);
  if (existsSync(target)) {
    throw ServiceError.conflict(
      `${target} exists already: choose a new file name.`,
      undefined,
      'backup_file_exists',
    );
  }
  const staging = mkdtempSync(path.join(tmpdir(), 'cairn-backup-'));
  try {
    const { layout } = source;
    const left: BackupManifest['left'] = [];
    const names: BackupFileName[] = [];
    const databases: Array<[BackupFileName, string | undefined]> = [
      [
        'cairn.db',
        source.databaseUrl && 'Cairn keeps its records in Postgres (DATABASE_URL): back it up with pg_dump',
      ],
      [
        'temporal.db',
        source.temporalAddress && 'Temporal is external (TEMPORAL_ADDRESS): back up its own store',
      ],
    ];
    for (const [name, elsewhere] of databases) {
      if (elsewhere) left.push({ what: name, why: elsewhere });
      else if (!existsSync(homeFile(layout, name))) left.push({ what: name, why: 'the home has none yet' });
      else {
        await backupSqliteFile(homeFile(layout, name), path.join(staging, name));
        names.push(name);
      }
    }
    for (const name of ['config.yaml', '.env'] as const) {
      if (!existsSync(homeFile(layout, name))) continue;
      copyFileSync(homeFile(layout, name), path.join(staging, name));
      names.push(name);
    }
    left.push({ what: 'workspaces', why: 'clones and worktrees are made again from their repositories' });
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      cairnVersion: source.cairnVersion,
      createdAt: new Date().toISOString(),
      home: layout.home,
      files: await Promise.all(names.map((name) => describeFile(staging, name))),
      left,
    };
    writeFileSync(path.join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    const partial = `${target}.partial`;
    mkdirSync(path.dirname(target), { recursive: true });
    await tar.create({ gzip: true, file: partial, cwd: staging, portable: true, mode: 0o600 }, [
      MANIFEST_NAME,
      ...names,
    ]);
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface RestoreOutcome {
  manifest: BackupManifest;
  /** Where the files the restore replaced were moved, if it replaced any. */
  replacedInto?: string;
}

/**
 * `cairn restore`: into a home no Cairn process uses. The archive is unpacked beside the home and
 * checked whole (manifest, checksums, SQLite's integrity check) before anything is touched, so a
 * damaged file changes nothing. Files it replaces (and the databases' -wal and -shm files, which
 * would not match the restored databases) are moved to `replaced-<time>/` in the home, not deleted.
 */
export async function restoreBackup(layout: HomeLayout, file: string): Promise<RestoreOutcome> {
  const users = liveHomeUsers(layout.home);
  if (users.length > 0) {
    const list = users.map((user) => `${user.role} (pid ${user.pid})`).join(', ');
    throw ServiceError.conflict(
      `${layout.home} is in use by ${list}: stop Cairn before restoring into it.`,
      { pids: users.map((user) => user.pid) },
      'home_in_use',
    );
  }
  if (!existsSync(file))
    throw ServiceError.notFound(`There is no backup file at ${file}.`, 'backup_not_found');
  mkdirSync(path.dirname(layout.home), { recursive: true });
  const staging = mkdtempSync(`${layout.home}.restore-`);
  try {
    const manifest = await unpackChecked(file, staging);
    mkdirSync(layout.home, { recursive: true });
    const replaced = path.join(layout.home, `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    let replacedAny = false;
    const moveAside = (current: string) => {
      if (!existsSync(current)) return;
      mkdirSync(replaced, { recursive: true });
      renameSync(current, path.join(replaced, path.basename(current)));
      replacedAny = true;
    };
    for (const entry of manifest.files) {
      const destination = homeFile(layout, entry.name);
      moveAside(destination);
      if (DATABASE_FILES.includes(entry.name))
        for (const suffix of ['-wal', '-shm']) moveAside(destination + suffix);
      renameSync(path.join(staging, entry.name), destination);
      if (entry.name === '.env') chmodSync(destination, 0o600);
    }
    return { manifest, ...(replacedAny ? { replacedInto: replaced } : {}) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function unpackChecked(file: string, staging: string): Promise<BackupManifest> {
  const allowed = new Set<string>([MANIFEST_NAME, ...BACKUP_FILES]);
  let unexpected: string | undefined;
  try {
    await tar.extract({
      file,
      cwd: staging,
      strict: true,
      // Only the archive's own regular files, flat: no links, no paths that climb out.
      filter: (entry, stat) => {
        const ok = allowed.has(entry) && 'type' in stat && stat.type === 'File';
        if (!ok) unexpected ??= entry;
        return ok;
      },
    });
  } catch (error) {
    throw backupCorrupt(`it is not a readable gzipped tar file (${(error as Error).message})`);
  }
  if (unexpected !== undefined) throw backupCorrupt(`it holds an unexpected entry (${unexpected})`);
  let text: string;
  try {
    text = readFileSync(path.join(staging, MANIFEST_NAME), 'utf8');
  } catch {
    throw backupCorrupt('it has no manifest');
  }
  const manifest = parseManifest(text);
  await checkFiles(staging, manifest);
  for (const entry of manifest.files) {
    if (!DATABASE_FILES.includes(entry.name)) continue;
    const problem = sqliteFileProblem(path.join(staging, entry.name));
    if (problem) throw backupCorrupt(`${entry.name} fails SQLite's integrity check (${problem})`);
  }
  return manifest;
}
