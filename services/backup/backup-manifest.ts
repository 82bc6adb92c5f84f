import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../service-error.js';

export const BACKUP_FORMAT = 'cairn-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';

/** The files a backup may hold, by their name in the archive; each goes back to the same name in the home. */
export const BACKUP_FILES = ['cairn.db', 'temporal.db', 'config.yaml', '.env'] as const;
export type BackupFileName = (typeof BACKUP_FILES)[number];

/** SQLite databases: checked by SQLite itself before a restore, and their -wal/-shm files moved aside. */
export const DATABASE_FILES: readonly BackupFileName[] = ['cairn.db', 'temporal.db'];

export interface ManifestFile {
  name: BackupFileName;
  bytes: number;
  sha256: string;
}

/** What a backup holds, what it left out and why: the first entry of the archive. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_FORMAT_VERSION;
  cairnVersion: string;
  createdAt: string;
  /** The home it was made from, for people reading the manifest. */
  home: string;
  files: ManifestFile[];
  left: Array<{ what: string; why: string }>;
}

export async function describeFile(folder: string, name: BackupFileName): Promise<ManifestFile> {
  const file = path.join(folder, name);
  return { name, bytes: statSync(file).size, sha256: await sha256Of(file) };
}

export function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

const corrupt = (detail: string) =>
  ServiceError.invalid('backup_corrupt', `The backup cannot be used: ${detail}.`);

/** The manifest as written by createBackup, or a refusal that says what is wrong with it. */
export function parseManifest(text: string): BackupManifest {
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw corrupt('its manifest is not JSON');
  }
  if (manifest.format !== BACKUP_FORMAT) throw corrupt('it is not a Cairn backup');
  if (manifest.version !== BACKUP_FORMAT_VERSION) {
    throw corrupt(
      `it has format version ${String(manifest.version)}, this Cairn reads ${BACKUP_FORMAT_VERSION}`,
    );
  }
  const files = Array.isArray(manifest.files) ? manifest.files : [];
  for (const entry of files) {
    if (
      !BACKUP_FILES.includes(entry?.name) ||
      typeof entry.sha256 !== 'string' ||
      !Number.isInteger(entry.bytes)
    ) {
      throw corrupt(`its manifest lists an unknown file (${String(entry?.name)})`);
    }
  }
  return { ...(manifest as BackupManifest), files };
}

/** Every listed file is there with its size and checksum. */
export async function checkFiles(folder: string, manifest: BackupManifest): Promise<void> {
  for (const entry of manifest.files) {
    const file = path.join(folder, entry.name);
    let bytes: number;
    try {
      bytes = statSync(file).size;
    } catch {
      throw corrupt(`${entry.name} is missing`);
    }
    if (bytes !== entry.bytes || (await sha256Of(file)) !== entry.sha256) {
      throw corrupt(`${entry.name} is damaged (its checksum differs from the manifest's)`);
    }
  }
}

export { corrupt as backupCorrupt };
