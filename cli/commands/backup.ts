import { createContext } from '../boot/context.js';
import { createBackup, restoreBackup } from '../../services/backup/backup-archive.js';
import { ServiceError } from '../../services/service-error.js';

/** `cairn backup <file>`: a consistent copy of the home while Cairn runs (docs/operations.md#backups). */
export async function runBackup(file: string): Promise<number> {
  const context = createContext({ createHome: false });
  try {
    const manifest = await createBackup(
      {
        layout: context.layout,
        databaseUrl: context.environment.server.databaseUrl,
        temporalAddress: context.environment.temporal.address,
        cairnVersion: context.pkg.version,
      },
      file,
    );
    console.log(`backup written to ${file}`);
    for (const entry of manifest.files) console.log(`  ${entry.name.padEnd(12)} ${entry.bytes} bytes`);
    for (const entry of manifest.left) console.log(`  not included: ${entry.what}: ${entry.why}`);
    return 0;
  } catch (error) {
    return refused(error);
  } finally {
    context.configSource.close();
  }
}

/** `cairn restore <file>`: into a home no Cairn process uses; checked whole before anything changes. */
export async function runRestore(file: string): Promise<number> {
  const context = createContext({ createHome: false });
  try {
    const outcome = await restoreBackup(context.layout, file);
    console.log(
      `restored ${outcome.manifest.files.map((entry) => entry.name).join(', ')} into ${context.layout.home}`,
    );
    console.log(`  from a backup of ${outcome.manifest.home} made ${outcome.manifest.createdAt}`);
    if (outcome.replacedInto) console.log(`  the files it replaced are in ${outcome.replacedInto}`);
    return 0;
  } catch (error) {
    return refused(error);
  } finally {
    context.configSource.close();
  }
}

function refused(error: unknown): number {
  if (!(error instanceof ServiceError)) throw error;
  console.error(`cairn: ${error.detail}`);
  return 1;
}
